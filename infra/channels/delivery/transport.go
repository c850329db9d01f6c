package delivery

import (
	"context"
	"errors"
	"fmt"
	"net/url"

	"github.com/pergola-ai/pergola/domain/errs"
)

// TransportError reports a request to a platform that got no answer,
// without the request's URL (it may hold a token). A refusal of the
// egress guard and a canceled or expired context are final; anything
// else (a refused or dropped connection) is Retryable and unavailable.
func TransportError(platform, what string, err error) error {
	err = StripURL(err)
	if errors.Is(err, errs.ErrForbidden) || errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded) {
		return fmt.Errorf("%s %s: %w", platform, what, err)
	}
	return &Retryable{Err: errs.New(errs.ErrUnavailable, "%s %s: %v", platform, what, err)}
}

// Once unwraps a Retryable, for calls made without retries (credential
// checks inside a builder's request).
func Once(err error) error {
	var r *Retryable
	if errors.As(err, &r) {
		return r.Err
	}
	return err
}

// StripURL drops the request URL an *url.Error carries around err.
func StripURL(err error) error {
	var ue *url.Error
	if errors.As(err, &ue) {
		return ue.Err
	}
	return err
}
