package delivery

import (
	"context"
	"errors"
	"net/url"
	"strings"
	"testing"

	"github.com/pergola-ai/pergola/domain/errs"
)

// TestTransportErrorHidesTheURLAndSortsFinalFromRetryable: the URL (which
// may hold a bot token) never reaches the error, a guard refusal or a
// canceled context is final, a dropped connection is retryable.
func TestTransportErrorHidesTheURLAndSortsFinalFromRetryable(t *testing.T) {
	wrap := func(err error) error {
		return &url.Error{Op: "Post", URL: "https://api.example/bot123:SECRET/sendMessage", Err: err}
	}
	dropped := TransportError("telegram", "sendMessage", wrap(errors.New("connection reset by peer")))
	var r *Retryable
	if !errors.As(dropped, &r) || !errors.Is(dropped, errs.ErrUnavailable) || strings.Contains(dropped.Error(), "SECRET") {
		t.Fatalf("dropped connection: %v", dropped)
	}
	for _, final := range []error{errs.Forbidden("egress refused"), context.Canceled} {
		err := TransportError("telegram", "sendMessage", wrap(final))
		if errors.As(err, &r) || !errors.Is(err, final) || strings.Contains(err.Error(), "SECRET") {
			t.Fatalf("%v: %v should be final and hide the URL", final, err)
		}
	}
	if err := Once(dropped); errors.As(err, &r) || !errors.Is(err, errs.ErrUnavailable) {
		t.Fatalf("Once(%v) = %v", dropped, err)
	}
}
