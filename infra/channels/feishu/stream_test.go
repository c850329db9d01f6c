package feishu

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"github.com/pergola-ai/pergola/domain/errs"
)

// TestStreamingEditsTheReply replies with the first text of an answer
// and edits the reply as it grows, in plain text, within the platform's
// 20 edits.
func TestStreamingEditsTheReply(t *testing.T) {
	r := newRig(t, false)
	ctx := context.Background()
	handle, err := r.kind.SendPart(ctx, r.ch, toMessage, 0, "**Hel")
	if err != nil {
		t.Fatal(err)
	}
	var h sentMessage
	if err := json.Unmarshal(handle, &h); err != nil || !strings.HasPrefix(h.MessageID, "om_reply_") {
		t.Fatalf("handle = %s (%v); want the reply's message id", handle, err)
	}
	if err := r.kind.Edit(ctx, r.ch, toMessage, handle, "**Hello** and [docs](https://x.example)"); err != nil {
		t.Fatal(err)
	}
	if text, ok := r.fake.Text(h.MessageID); !ok || text != "Hello and docs (https://x.example)" {
		t.Fatalf("reply reads %q; want the whole answer in plain text", text)
	}
	if calls := r.fake.Calls(); calls[len(calls)-1] != "PUT /open-apis/im/v1/messages/"+h.MessageID {
		t.Fatalf("calls = %v; want the edit API last", calls)
	}
	if r.kind.MaxEdits() != 20 {
		t.Fatalf("MaxEdits = %d; the platform allows 20", r.kind.MaxEdits())
	}
}

func TestEditRefusals(t *testing.T) {
	r := newRig(t, false)
	ctx := context.Background()
	err := r.kind.Edit(ctx, r.ch, toMessage, json.RawMessage(`{"message_id":"om_1"}`), "x")
	if !errors.Is(err, errs.ErrInvalid) || !strings.Contains(err.Error(), "code 230001") {
		t.Fatalf("edit of a message the bot did not send = %v; want the platform's refusal", err)
	}
	handle, err := r.kind.SendPart(ctx, r.ch, toMessage, 0, "first")
	if err != nil {
		t.Fatal(err)
	}
	for i := 0; i < MaxEdits; i++ {
		if err := r.kind.Edit(ctx, r.ch, toMessage, handle, "edit "+strings.Repeat("x", i)); err != nil {
			t.Fatalf("edit %d: %v", i+1, err)
		}
	}
	if err := r.kind.Edit(ctx, r.ch, toMessage, handle, "one too many"); !errors.Is(err, errs.ErrInvalid) {
		t.Fatalf("edit %d = %v; want refused", MaxEdits+1, err)
	}
	r.fake.FailNext(429, 2)
	if err := r.kind.Edit(ctx, r.ch, toMessage, handle, "later"); !errors.Is(err, errs.ErrRateLimited) || len(r.waits) != 0 {
		t.Fatalf("rate-limited edit = %v, waits %v; want one attempt, rate limited", err, r.waits)
	}
}
