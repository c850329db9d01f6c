package webchat

import (
	"context"
	"fmt"
	"strconv"
	"time"

	"github.com/pergola-ai/pergola/domain/channel"
	"github.com/pergola-ai/pergola/domain/errs"
)

// Session is a browser's end user and the token it sends with every call.
type Session struct {
	Token   string
	EndUser EndUser
}

// Session starts or renews the end user of a browser on c. With a token
// (raw), the token is checked (see Identify): an anonymous one comes back
// renewed, a site-signed one as it is. Without, a new anonymous end user
// is issued when the channel allows them (errs.ErrForbidden otherwise),
// at most SessionsPerMinute a minute per client address (a
// *RateLimitError). A channel that does not serve is refused as Serving
// says.
func (s *Service) Session(ctx context.Context, c *channel.Channel, raw, clientAddr string) (*Session, error) {
	if _, _, err := s.Serving(ctx, c); err != nil {
		return nil, err
	}
	if raw != "" {
		return s.renew(c, raw)
	}
	if !c.Web().AllowAnonymous {
		return nil, anonymousRefused(c)
	}
	key := "webchat:sessions:" + clientAddr
	if err := s.limit(ctx, key, s.d.SessionsPerMinute, "new chat sessions from one address"); err != nil {
		return nil, err
	}
	tok, eu, err := s.issueAnonymous(c, newAnonymousID())
	if err != nil {
		return nil, err
	}
	return &Session{Token: tok, EndUser: eu}, nil
}

// renew checks a token and renews an anonymous one.
func (s *Service) renew(c *channel.Channel, raw string) (*Session, error) {
	eu, err := s.Identify(c, raw)
	if err != nil {
		return nil, err
	}
	if !eu.Anonymous {
		return &Session{Token: raw, EndUser: eu}, nil
	}
	tok, renewed, err := s.issueAnonymous(c, eu.ID[len("web:"+anonPrefix):])
	if err != nil {
		return nil, err
	}
	return &Session{Token: tok, EndUser: renewed}, nil
}

// RateLimitError is errs.ErrRateLimited with the wait the caller should
// honour before trying again (the Retry-After header).
type RateLimitError struct {
	Wait time.Duration
	msg  string
}

func (e *RateLimitError) Error() string { return e.msg }

// Is makes a RateLimitError match errs.ErrRateLimited.
func (e *RateLimitError) Is(target error) bool { return target == errs.ErrRateLimited }

// RetryAfterSeconds is the wait in whole seconds, at least 1.
func (e *RateLimitError) RetryAfterSeconds() int { return max(int(e.Wait.Seconds()+0.999), 1) }

// limit counts one event under key, perMinute a minute. A failing limiter
// lets the event through (a Redis blip must not take the chat down) and
// is logged.
func (s *Service) limit(ctx context.Context, key string, perMinute int, what string) error {
	ok, wait, err := s.d.Limiter.Allow(ctx, key, perMinute, time.Minute)
	if err != nil {
		s.d.Log.Warn("webchat: rate limiter failed; letting the request through", "err", err)
		return nil
	}
	if ok {
		return nil
	}
	e := &RateLimitError{Wait: wait}
	e.msg = fmt.Sprintf("too many %s: at most %s a minute; retry in %ds", what, strconv.Itoa(perMinute), e.RetryAfterSeconds())
	return e
}
