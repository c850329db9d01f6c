package slack

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/pergola-ai/pergola/domain/errs"
)

// TestStreamingUpdatesGrowThePostedMessage posts the first text of an
// answer in the thread and updates it, through slack-go, as it grows.
func TestStreamingUpdatesGrowThePostedMessage(t *testing.T) {
	r := newRig(t)
	ctx := context.Background()
	handle, err := r.kind.SendPart(ctx, r.ch, threadReply, 0, "**Hel")
	if err != nil {
		t.Fatal(err)
	}
	var h posted
	if err := json.Unmarshal(handle, &h); err != nil || h.Channel != "C9" || h.TS == "" {
		t.Fatalf("handle = %s (%v); want the channel and the message ts", handle, err)
	}
	for _, text := range []string{"**Hello** wor", "**Hello** world & [docs](https://x.dev)"} {
		if err := r.kind.Edit(ctx, r.ch, threadReply, handle, text); err != nil {
			t.Fatal(err)
		}
	}
	m, ok := r.fake.Message(h.Channel, h.TS)
	if !ok || m.Text != "*Hello* world &amp; <https://x.dev|docs>" || m.ThreadTS != "1700000001.000200" {
		t.Fatalf("message reads %+v; want the whole answer in mrkdwn, in the thread", m)
	}
	if calls := r.fake.Calls(); strings.Join(calls, ",") != "chat.postMessage,chat.update,chat.update" {
		t.Fatalf("calls = %v", calls)
	}
	if u := r.fake.Updates(); len(u) != 2 || u[0].Text != "*Hello* wor" {
		t.Fatalf("updates = %+v", u)
	}
}

func TestUpdateRefusals(t *testing.T) {
	r := newRig(t)
	ctx := context.Background()
	unknown := json.RawMessage(`{"channel":"C9","ts":"1700000000.999999"}`)
	if err := r.kind.Edit(ctx, r.ch, threadReply, unknown, "x"); !errors.Is(err, errs.ErrInvalid) || !strings.Contains(err.Error(), "message_not_found") {
		t.Fatalf("update of an unknown message = %v; want Slack's message_not_found", err)
	}
	handle, err := r.kind.SendPart(ctx, r.ch, threadReply, 0, "first")
	if err != nil {
		t.Fatal(err)
	}
	r.fake.FailNext(429, 2)
	err = r.kind.Edit(ctx, r.ch, threadReply, handle, "first and more")
	var asked interface{ RetryAfter() time.Duration }
	if !errors.As(err, &asked) || asked.RetryAfter() != 2*time.Second || !errors.Is(err, errs.ErrRateLimited) || len(r.waits) != 0 {
		t.Fatalf("rate-limited update = %v, waits %v; want one attempt reporting Retry-After 2s", err, r.waits)
	}
	r.ch.Settings["bot_token"] = "xoxb-revoked"
	if err := r.kind.Edit(ctx, r.ch, threadReply, handle, "first and more"); !errors.Is(err, errs.ErrUnauthenticated) {
		t.Fatalf("update with a refused token = %v; want unauthenticated", err)
	}
}
