package discord

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/pergola-ai/pergola/domain/errs"
)

// TestStreamingEditsTheOriginalResponse grows the deferred response as
// a streamed answer does: part 0 and its edits all go to @original, and
// a follow-up made later can be edited by its id.
func TestStreamingEditsTheOriginalResponse(t *testing.T) {
	r := newRig(t)
	ctx := context.Background()
	reply, token := r.deferred(t)
	handle, err := r.kind.SendPart(ctx, r.ch, reply, 0, "Hel")
	if err != nil || string(handle) != `{"message_id":"@original"}` {
		t.Fatalf("handle = %s, %v; want the original response", handle, err)
	}
	for _, text := range []string{"Hello @every", "Hello @everyone, done"} {
		if err := r.kind.Edit(ctx, r.ch, reply, handle, text); err != nil {
			t.Fatal(err)
		}
	}
	follow, err := r.kind.SendPart(ctx, r.ch, reply, 1, "second part")
	if err != nil {
		t.Fatal(err)
	}
	if err := r.kind.Edit(ctx, r.ch, reply, follow, "second part, edited"); err != nil {
		t.Fatal(err)
	}
	got := r.fake.MessagesOf(token)
	if len(got) != 5 || got[2].Target != "@original" || got[2].Content != "Hello @\u200beveryone, done" || got[3].Edit ||
		got[4].Target != got[3].ID || len(got[2].ParseMentions) != 0 {
		t.Fatalf("messages = %+v; want 3 edits of @original (mentions defused), a follow-up and its edit", got)
	}
}

func TestEditRefusals(t *testing.T) {
	r := newRig(t)
	ctx := context.Background()
	reply, _ := r.deferred(t)
	err := r.kind.Edit(ctx, r.ch, reply, json.RawMessage(`{"message_id":"1234"}`), "x")
	if !errors.Is(err, errs.ErrNotFound) || !strings.Contains(err.Error(), "Unknown Message (code 10008)") {
		t.Fatalf("edit of an unknown message = %v; want Discord's Unknown Message", err)
	}
	r.fake.FailNext(429, 1.5)
	err = r.kind.Edit(ctx, r.ch, reply, json.RawMessage(`{"message_id":"@original"}`), "x")
	var asked interface{ RetryAfter() time.Duration }
	if !errors.As(err, &asked) || asked.RetryAfter() != 1500*time.Millisecond || len(r.waits) != 0 {
		t.Fatalf("rate-limited edit = %v, waits %v; want one attempt reporting 1.5s", err, r.waits)
	}
}
