package egress

import (
	"errors"

	"github.com/pergola-ai/pergola/domain/errs"
)

// The errors a guarded request can end with. Callers test them with
// errors.Is through the *url.Error the http.Client wraps them in.
var (
	// ErrRefused means the destination is not allowed: a refused address,
	// host name or scheme. Refusals also match errs.ErrForbidden, and their
	// text says which address was refused and why.
	ErrRefused = errors.New("egress refused")
	// ErrTooLarge means a response body went past Config.MaxResponseBytes.
	ErrTooLarge = errors.New("egress: response body too large")
	// ErrTooManyRedirects means a request was redirected more than
	// Config.MaxRedirects times.
	ErrTooManyRedirects = errors.New("egress: too many redirects")
)

// allowHint ends the message of a refusal the operator can lift.
const allowHint = " (allow it with PERGOLA_EGRESS_ALLOW)"

// refusal is a refused destination. Its text is the whole message, e.g.
// "egress refused: 127.0.0.1 is a loopback address (allow it with
// PERGOLA_EGRESS_ALLOW)".
type refusal struct{ msg string }

func (e *refusal) Error() string { return "egress refused: " + e.msg }

// Is makes a refusal match ErrRefused and errs.ErrForbidden.
func (e *refusal) Is(target error) bool {
	return target == ErrRefused || target == errs.ErrForbidden
}

func refuse(msg string) error { return &refusal{msg: msg} }
