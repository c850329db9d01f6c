package middleware

import (
	"context"
	"errors"
	"net/http"
	"strconv"
	"time"

	"github.com/cloudwego/hertz/pkg/app"

	"github.com/pergola-ai/pergola/backend/api/httpx"
	"github.com/pergola-ai/pergola/domain/errs"
	"github.com/pergola-ai/pergola/domain/identity"
)

// SessionCookie names the console session cookie.
const SessionCookie = "pergola_session"

// Authenticator turns a token secret into the caller.
type Authenticator interface {
	Authenticate(ctx context.Context, secret string) (identity.Principal, error)
}

// Auth requires a valid token: a bearer PAT or session, or the console
// session cookie. Failures answer 401 with code 4100; an address past the
// guard's limit of failures gets 429 with code 4013 without a lookup.
func Auth(a Authenticator, guard *FailureGuard) app.HandlerFunc {
	return func(ctx context.Context, c *app.RequestContext) {
		secret := bearer(c)
		if secret == "" {
			secret = string(c.Cookie(SessionCookie))
		}
		addr := guard.addr(c)
		if secret == "" && len(c.GetHeader("Authorization")) > 0 {
			authFailed(ctx, c, guard, addr, "", errs.Unauthenticated(
				"the Authorization header must read Bearer <token> (a personal access token); it has no Bearer prefix"))
			return
		}
		if retry := guard.retryAfter(addr, secret, time.Now()); retry > 0 {
			tooManyFailures(c, guard.perMinute, retry)
			return
		}
		p, err := a.Authenticate(ctx, secret)
		if err != nil {
			authFailed(ctx, c, guard, addr, secret, err)
			return
		}
		guard.accepted(secret, time.Now())
		httpx.SetPrincipal(c, p)
		c.Next(ctx)
	}
}

// authFailed answers a failed authentication, counting it against addr
// when a token was sent and was refused (a missing token costs no lookup).
func authFailed(ctx context.Context, c *app.RequestContext, guard *FailureGuard, addr, secret string, err error) {
	if secret != "" && errors.Is(err, errs.ErrUnauthenticated) {
		if retry := guard.failed(ctx, addr); retry > 0 {
			tooManyFailures(c, guard.perMinute, retry)
			return
		}
	}
	httpx.Fail(ctx, c, err)
	c.Abort()
}

// Limiter counts calls per key in a window.
type Limiter interface {
	Allow(ctx context.Context, key string, limit int, window time.Duration) (bool, time.Duration, error)
}

// RateLimit allows each token perMinute requests a minute; beyond it the
// answer is 429 with Retry-After. A limiter failure lets the request through
// (failing open keeps the API up when Redis blips) and is logged.
func RateLimit(l Limiter, perMinute int) app.HandlerFunc {
	return func(ctx context.Context, c *app.RequestContext) {
		p := httpx.Caller(c)
		if perMinute <= 0 || p.TokenID == 0 {
			c.Next(ctx)
			return
		}
		ok, retry, err := l.Allow(ctx, "ratelimit:token:"+strconv.FormatInt(p.TokenID, 10), perMinute, time.Minute)
		if err == nil && !ok {
			secs := int(retry.Seconds() + 0.999)
			c.Header("Retry-After", strconv.Itoa(max(secs, 1)))
			httpx.FailWith(c, http.StatusTooManyRequests, httpx.CodeRateLimited,
				"rate limit of "+strconv.Itoa(perMinute)+" requests a minute reached; retry after "+strconv.Itoa(max(secs, 1))+"s")
			return
		}
		c.Next(ctx)
	}
}
