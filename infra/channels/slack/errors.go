package slack

import (
	"errors"
	"net/http"

	"github.com/slack-go/slack"

	"github.com/pergola-ai/pergola/domain/errs"
	"github.com/pergola-ai/pergola/infra/channels/delivery"
)

// authErrors are the Web API error codes that mean the token is refused.
var authErrors = map[string]bool{
	"not_authed": true, "invalid_auth": true, "account_inactive": true,
	"token_revoked": true, "token_expired": true,
}

// translate turns an error of slack-go into Pergola's vocabulary: a
// refused token is errs.ErrUnauthenticated, other Slack error codes
// errs.ErrInvalid, an egress refusal errs.ErrForbidden; 429, 5xx and
// transport failures come wrapped in *delivery.Retryable.
func translate(method string, err error) error {
	if err == nil {
		return nil
	}
	var limited *slack.RateLimitedError
	var status slack.StatusCodeError
	var refused slack.SlackErrorResponse
	switch {
	case errors.As(err, &limited):
		return &delivery.Retryable{Err: errs.New(errs.ErrRateLimited, "slack %s: rate limited, retry after %s", method, limited.RetryAfter), After: limited.RetryAfter}
	case errors.As(err, &status):
		return statusError(method, status)
	case errors.As(err, &refused) && authErrors[refused.Err]:
		return errs.Unauthenticated("slack %s: %s (the bot token was refused)", method, errs.Excerpt(refused.Err, errs.MaxExcerpt))
	case errors.As(err, &refused):
		return errs.New(errs.ErrInvalid, "slack %s: %s", method, errs.Excerpt(refused.Err, errs.MaxExcerpt))
	}
	return delivery.TransportError("slack", method, err)
}

func statusError(method string, s slack.StatusCodeError) error {
	switch {
	case s.Code == http.StatusTooManyRequests:
		return &delivery.Retryable{Err: errs.New(errs.ErrRateLimited, "slack %s: %s", method, s.Status)}
	case s.Code >= 500:
		return &delivery.Retryable{Err: errs.New(errs.ErrUnavailable, "slack %s: %s", method, s.Status)}
	case s.Code == http.StatusUnauthorized || s.Code == http.StatusForbidden:
		return errs.Unauthenticated("slack %s: %s", method, s.Status)
	}
	return errs.New(errs.ErrInvalid, "slack %s: %s", method, s.Status)
}

func isAuth(err error) bool { return errors.Is(err, errs.ErrUnauthenticated) }
