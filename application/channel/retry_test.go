package channel_test

import (
	"context"
	"errors"
	"strings"
	"sync"
	"testing"
	"time"

	channelapp "github.com/pergola-ai/pergola/application/channel"
	"github.com/pergola-ai/pergola/domain/channel"
	"github.com/pergola-ai/pergola/domain/errs"
)

// failingTurns fails its first n turns with err, then echoes.
type failingTurns struct {
	mu    sync.Mutex
	n     int
	err   error
	calls int
}

func (f *failingTurns) Answer(_ context.Context, req channelapp.TurnRequest) (channelapp.TurnAnswer, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.calls++
	if f.calls <= f.n {
		return channelapp.TurnAnswer{}, f.err
	}
	return channelapp.TurnAnswer{ChatID: 100 + int64(f.calls), ConversationID: 7, Text: "echo: " + req.Text}, nil
}

// TestFailedTurns: a turn failing while the model is unavailable is
// tried again (up to three times) and answered once it is back; one that
// cannot be mended, or that keeps failing, gets the apology at once, once.
func TestFailedTurns(t *testing.T) {
	down := &channelapp.TurnError{Apology: "The model is unavailable right now; please try again.", Retry: true, ChatID: 55,
		Err: errors.New("chat 55 failed: the model is unavailable")}
	cases := []struct {
		name    string
		turns   *failingTurns
		window  time.Duration
		calls   int
		answer  string
		apology bool
		why     string
	}{
		{"the model comes back", &failingTurns{n: 2, err: down}, time.Minute, 3, "echo: hi", false, ""},
		{"the model stays down", &failingTurns{n: 9, err: down}, time.Minute, 3, down.Apology, true, "the bot did not answer (3 tries): chat 55 failed"},
		{"a bad request is not retried", &failingTurns{n: 9, err: errs.Invalid("text", "too long")}, time.Minute, 1, channelapp.Apology, true, "too long"},
		{"an old event is not retried", &failingTurns{n: 9, err: down}, time.Millisecond, 1, down.Apology, true, "(1 try)"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			a := &scriptedAdapter{}
			e := newRuntimeEnvWith(a, tc.turns, func(d *channelapp.RuntimeDeps) {
				d.TurnBackoff, d.RetryWindow = 5*time.Millisecond, tc.window
			})
			d := e.post(t, `{"ID":"u1","User":"ann","Text":"hi"}`)
			if d.Status != channel.DeliveryDelivered || d.Apology != tc.apology || tc.turns.calls != tc.calls || d.TurnAttempts != tc.calls || d.Answer != tc.answer {
				t.Fatalf("event %s, apology %v, %d turns (%d recorded), answer %q; want delivered, %v, %d, %q",
					d.Status, d.Apology, tc.turns.calls, d.TurnAttempts, d.Answer, tc.apology, tc.calls, tc.answer)
			}
			if len(a.sends) != 1 || a.sends[0] != tc.answer || d.NextAttemptAt != nil || !strings.Contains(d.Error, tc.why) {
				t.Fatalf("sent %q, next attempt %v, error %q; want %q once, nothing planned, the error saying %q", a.sends, d.NextAttemptAt, d.Error, tc.answer, tc.why)
			}
			if tc.apology && tc.turns.err == down && d.ChatID != 55 {
				t.Fatalf("chat id %d; want the failed chat 55 for the builder", d.ChatID)
			}
		})
	}
}

// TestSendRetriesStopWhenTheEventIsOld: a platform that keeps failing
// is retried while the event is young; then the event fails saying why,
// with the attempts made.
func TestSendRetriesStopWhenTheEventIsOld(t *testing.T) {
	retry := &channelapp.RetryError{Status: 503}
	a := &scriptedAdapter{script: []error{retry, retry, retry, retry, retry, retry, retry, retry}}
	e := newRuntimeEnvWith(a, nil, func(d *channelapp.RuntimeDeps) {
		d.DeliveryAttempts, d.Backoff, d.RetryWindow = 8, 20*time.Millisecond, 50*time.Millisecond
	})
	d := e.post(t, `{"ID":"u1","User":"ann","Text":"hi"}`)
	if d.Status != channel.DeliveryFailed || d.Attempts != 2 || !strings.Contains(d.Error, "delivery failed after 2 attempts: the receiver answered 503") {
		t.Fatalf("event %s after %d attempts: %q; want failed after 2 (20ms, then 40ms would pass the 50ms window)", d.Status, d.Attempts, d.Error)
	}
}
