package channel_test

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	channelapp "github.com/pergola-ai/pergola/application/channel"
	"github.com/pergola-ai/pergola/domain/channel"
	"github.com/pergola-ai/pergola/domain/errs"
)

func TestVerify(t *testing.T) {
	const secret = "whsec-0123456789abcdef"
	now := time.Unix(1_750_000_000, 0)
	body := []byte(`{"event_id":"e1"}`)
	good := channelapp.Sign(secret, now, body)
	cases := []struct {
		name   string
		header string
		body   []byte
		want   string // "" for valid
	}{
		{"valid", good, body, ""},
		{"second v1 valid (rotation)", good[:strings.Index(good, ",")] + ",v1=00ff," + good[strings.Index(good, ",")+1:], body, ""},
		{"missing", "", body, "missing or malformed"},
		{"body changed", good, []byte(`{"event_id":"e2"}`), "does not match"},
		{"other secret", channelapp.Sign("whsec-other-0123456789", now, body), body, "does not match"},
		{"six minutes old", channelapp.Sign(secret, now.Add(-6*time.Minute), body), body, "more than 5 minutes"},
		{"six minutes ahead", channelapp.Sign(secret, now.Add(6*time.Minute), body), body, "more than 5 minutes"},
		{"four minutes old", channelapp.Sign(secret, now.Add(-4*time.Minute), body), body, ""},
		{"timestamp not a number", "t=abc,v1=00", body, "unix seconds"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			err := channelapp.Verify(secret, tc.header, tc.body, now)
			if tc.want == "" && err != nil {
				t.Fatalf("Verify = %v; want valid", err)
			}
			if tc.want != "" && (!errors.Is(err, errs.ErrUnauthenticated) || !strings.Contains(err.Error(), tc.want)) {
				t.Fatalf("Verify = %v; want unauthenticated saying %q", err, tc.want)
			}
		})
	}
}

// runtimeEnv is a runtime over in-memory fakes with one active channel.
type runtimeEnv struct {
	rt      *channelapp.Runtime
	events  *memEvents
	queue   *memQueue
	turns   *echoTurns
	adapter *scriptedAdapter
}

func newRuntimeEnv(a *scriptedAdapter) *runtimeEnv { return newRuntimeEnvWith(a, nil, nil) }

// newRuntimeEnvWith is newRuntimeEnv with turns answering (nil: echo)
// and tune changing the runtime's settings.
func newRuntimeEnvWith(a *scriptedAdapter, turns channelapp.Turns, tune func(*channelapp.RuntimeDeps)) *runtimeEnv {
	store := &memStore{rows: map[int64]channel.Channel{1: {ID: 1, BotID: 9, Kind: channel.KindTelegram, Status: channel.StatusActive}}}
	e := &runtimeEnv{events: newMemEvents(), queue: &memQueue{}, turns: &echoTurns{}, adapter: a}
	if turns == nil {
		turns = e.turns
	}
	deps := channelapp.RuntimeDeps{Channels: store, Events: e.events, Bots: published{}, Turns: turns,
		Queue: e.queue, Adapters: map[channel.Kind]channelapp.Adapter{channel.KindTelegram: a}, Backoff: time.Millisecond}
	if tune != nil {
		tune(&deps)
	}
	e.rt = channelapp.NewRuntime(deps)
	return e
}

// post receives one event and processes what was queued.
func (e *runtimeEnv) post(t *testing.T, body string) *channel.Delivery {
	t.Helper()
	ctx := context.Background()
	in := channelapp.Inbound{Header: func(string) string { return "" }, Body: []byte(body)}
	if _, err := e.rt.Receive(ctx, "telegram", 1, in); err != nil {
		t.Fatal(err)
	}
	for _, p := range e.queue.payloads {
		if err := e.rt.HandleEvent(ctx, p); err != nil {
			t.Fatal(err)
		}
	}
	d, err := e.events.GetEvent(ctx, 1)
	if err != nil {
		t.Fatal(err)
	}
	return d
}

func TestRuntimeDelivers(t *testing.T) {
	retry := &channelapp.RetryError{Status: 503}
	cases := []struct {
		name     string
		adapter  *scriptedAdapter
		status   channel.DeliveryStatus
		attempts int
		turns    int
		answer   string
	}{
		{"delivered at once", &scriptedAdapter{}, channel.DeliveryDelivered, 1, 1, "echo: hi"},
		{"retried until delivered", &scriptedAdapter{script: []error{retry, errors.New("connection reset")}}, channel.DeliveryDelivered, 3, 1, "echo: hi"},
		{"gives up after four sends", &scriptedAdapter{script: []error{retry, retry, retry, retry, nil}}, channel.DeliveryFailed, 4, 1, "echo: hi"},
		{"refused token is not retried", &scriptedAdapter{script: []error{errs.Unauthenticated("Unauthorized")}}, channel.DeliveryFailed, 1, 1, "echo: hi"},
		{"not text: fixed answer, no model", &scriptedAdapter{notText: true}, channel.DeliveryDelivered, 1, 0, channelapp.NotTextAnswer},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			e := newRuntimeEnv(tc.adapter)
			d := e.post(t, `{"ID":"u1","User":"ann","Text":"hi"}`)
			if d.Status != tc.status || d.Attempts != tc.attempts || e.turns.calls != tc.turns || d.Answer != tc.answer {
				t.Fatalf("event = %s after %d attempts, %d turns, answer %q; want %s, %d, %d, %q",
					d.Status, d.Attempts, e.turns.calls, d.Answer, tc.status, tc.attempts, tc.turns, tc.answer)
			}
			if d.EndUser != "telegram:ann" {
				t.Fatalf("end user = %q", d.EndUser)
			}
			// A retried event and a redelivered queue message change nothing.
			again := e.post(t, `{"ID":"u1","User":"ann","Text":"hi"}`)
			if len(e.queue.payloads) != 1 || e.turns.calls != tc.turns || again.Attempts != d.Attempts {
				t.Fatalf("a retry was processed again: %d queued, %d turns", len(e.queue.payloads), e.turns.calls)
			}
		})
	}
}

// BenchmarkReceive measures the inbound path of a webhook channel with a
// callback_url: verify the signature, parse, store, enqueue, acknowledge
// (in-memory store and queue: the runtime's own cost).
func BenchmarkReceive(b *testing.B) {
	const secret = "whsec-0123456789abcdef"
	store := &memStore{rows: map[int64]channel.Channel{1: {ID: 1, BotID: 9, Kind: channel.KindWebhook, Status: channel.StatusActive,
		Settings: channel.Settings{"secret": secret, "callback_url": "https://crm.example.com/hook"}}}}
	rt := channelapp.NewRuntime(channelapp.RuntimeDeps{Channels: store, Events: newMemEvents(), Bots: published{}, Turns: &echoTurns{},
		Queue: &memQueue{}, Adapters: map[channel.Kind]channelapp.Adapter{channel.KindWebhook: &channelapp.Webhook{}}})
	ctx := context.Background()
	b.ReportAllocs()
	for i := 0; b.Loop(); i++ {
		body := []byte(`{"event_id":"e` + strings.Repeat("x", i%3) + time.Now().Format(time.RFC3339Nano) + `","user_id":"ann","text":"hello"}`)
		sig := channelapp.Sign(secret, time.Now(), body)
		re, err := rt.Receive(ctx, "webhook", 1, channelapp.Inbound{Header: func(string) string { return sig }, Body: body})
		if err != nil || re.Status != 202 {
			b.Fatalf("Receive = %v, %v", re.Status, err)
		}
	}
}
