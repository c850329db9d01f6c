package line

import (
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/pergola-ai/pergola/domain/errs"
	"github.com/pergola-ai/pergola/infra/channels/delivery"
)

// apiError is a non-2xx answer of the Messaging API, with LINE's
// message ({"message": "...", "details": [...]}).
type apiError struct {
	what    string
	status  int
	message string
}

func (e *apiError) Error() string {
	return "line " + e.what + ": " + strconv.Itoa(e.status) + " " + e.message
}

// Is makes a refusal errs.ErrInvalid.
func (e *apiError) Is(target error) bool { return target == errs.ErrInvalid }

// invalidReplyToken says whether LINE refused a reply token as used or
// expired; the answer is then pushed instead.
func invalidReplyToken(err error) bool {
	var le *apiError
	return errors.As(err, &le) && le.status == http.StatusBadRequest && strings.Contains(le.message, "Invalid reply token")
}

// retryKeyAccepted says whether LINE already accepted a push with the
// same X-Line-Retry-Key (409): the message was sent.
func retryKeyAccepted(err error) bool {
	var le *apiError
	return errors.As(err, &le) && le.status == http.StatusConflict
}

// translate turns the SDK's outcome into Pergola's vocabulary: a
// refused token (401/403) is errs.ErrUnauthenticated with LINE's
// message, 429 and 5xx and transport failures come wrapped in
// *delivery.Retryable (honouring Retry-After), other refusals are an
// *apiError, errs.ErrInvalid.
func translate(what string, res *http.Response, err error) error {
	if err == nil {
		return nil
	}
	if res == nil {
		return delivery.TransportError("line", what, err)
	}
	le := &apiError{what: what, status: res.StatusCode, message: errorMessage(res)}
	switch {
	case res.StatusCode == http.StatusUnauthorized || res.StatusCode == http.StatusForbidden:
		return errs.Unauthenticated("%s (the channel access token was refused)", le.Error())
	case res.StatusCode == http.StatusTooManyRequests:
		return &delivery.Retryable{Err: errs.New(errs.ErrRateLimited, "%s", le.Error()), After: retryAfter(res)}
	case res.StatusCode >= 500:
		return &delivery.Retryable{Err: errs.New(errs.ErrUnavailable, "%s", le.Error()), After: retryAfter(res)}
	}
	return le
}

// errorMessage reads LINE's error message from the answer's body, which the
// SDK leaves readable.
func errorMessage(res *http.Response) string {
	if res.Body == nil {
		return res.Status
	}
	raw, _ := io.ReadAll(io.LimitReader(res.Body, 64<<10))
	var body struct {
		Message string `json:"message"`
	}
	if json.Unmarshal(raw, &body) == nil && body.Message != "" {
		return errs.Excerpt(body.Message, errs.MaxExcerpt)
	}
	return strings.TrimSpace(res.Status)
}

func retryAfter(res *http.Response) time.Duration {
	if s, err := strconv.Atoi(res.Header.Get("Retry-After")); err == nil && s > 0 {
		return time.Duration(s) * time.Second
	}
	return 0
}
