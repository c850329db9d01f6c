package telegram

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/pergola-ai/pergola/domain/errs"
)

// TestStreamingEditsGrowTheSentMessage sends the first part of an answer
// and edits it as a streamed answer grows: every prefix, however it cuts
// the Markdown, is HTML Telegram accepts, and the message ends with the
// whole answer.
func TestStreamingEditsGrowTheSentMessage(t *testing.T) {
	r := newRig(t)
	ctx := context.Background()
	answer := "**Bold** & <tags> then `code` and\n```go\nfmt.Println(1 < 2)\n```\ndone"
	handle, err := r.kind.SendPart(ctx, r.ch, privateReply, 0, answer[:4])
	if err != nil {
		t.Fatal(err)
	}
	var h sentMessage
	if err := json.Unmarshal(handle, &h); err != nil || h.ChatID != 42 || h.MessageID == 0 {
		t.Fatalf("handle = %s (%v); want the chat and the message id", handle, err)
	}
	for n := 5; n <= len(answer); n++ {
		if err := r.kind.Edit(ctx, r.ch, privateReply, handle, answer[:n]); err != nil {
			t.Fatalf("edit with %q: %v", answer[:n], err)
		}
	}
	m, ok := r.fake.Message(h.MessageID)
	if !ok || m.Text != HTML(answer) || m.ParseMode != "HTML" || m.ReplyTo != 11 {
		t.Fatalf("message reads %+v; want the whole answer in HTML, replying to 11", m)
	}
	for _, e := range r.fake.Edits() {
		if e.ParseMode != "HTML" || e.MessageID != h.MessageID {
			t.Fatalf("edit %+v fell back to plain text or went elsewhere", e)
		}
	}
}

func TestEditOfTheSameTextIsNotAnErrorAndSendsNoEdit(t *testing.T) {
	r := newRig(t)
	ctx := context.Background()
	handle, err := r.kind.SendPart(ctx, r.ch, privateReply, 0, "**same**")
	if err != nil {
		t.Fatal(err)
	}
	if err := r.kind.Edit(ctx, r.ch, privateReply, handle, "**same**"); err != nil {
		t.Fatalf("edit with the text the message shows = %v; want success", err)
	}
	if calls := r.fake.Calls(); len(calls) != 2 || calls[1] != "editMessageText" || len(r.fake.Edits()) != 0 {
		t.Fatalf("calls %v, edits %v; Telegram refused the edit as not modified and nothing changed", calls, r.fake.Edits())
	}
}

func TestEditRefusals(t *testing.T) {
	r := newRig(t)
	ctx := context.Background()
	unknown := json.RawMessage(`{"chat_id":42,"message_id":999999}`)
	if err := r.kind.Edit(ctx, r.ch, privateReply, unknown, "x"); !errors.Is(err, errs.ErrInvalid) || !strings.Contains(err.Error(), "message to edit not found") {
		t.Fatalf("edit of an unknown message = %v; want Telegram's not found", err)
	}
	handle, err := r.kind.SendPart(ctx, r.ch, privateReply, 0, "first")
	if err != nil {
		t.Fatal(err)
	}
	r.fake.FailNext(429, 3)
	err = r.kind.Edit(ctx, r.ch, privateReply, handle, "first and more")
	var asked interface{ RetryAfter() time.Duration }
	if !errors.As(err, &asked) || asked.RetryAfter() != 3*time.Second || len(r.waits) != 0 {
		t.Fatalf("rate-limited edit = %v after waits %v; want one attempt reporting retry_after 3s", err, r.waits)
	}
	r.ch.Settings["bot_token"] = "123456:AAHwrong"
	if err := r.kind.Edit(ctx, r.ch, privateReply, handle, "first and more"); !errors.Is(err, errs.ErrUnauthenticated) {
		t.Fatalf("edit with a refused token = %v; want unauthenticated", err)
	}
	if err := r.kind.Edit(ctx, r.ch, privateReply, json.RawMessage(`{}`), "x"); !errors.Is(err, errs.ErrInvalid) {
		t.Fatalf("edit without a handle = %v; want invalid", err)
	}
}

func TestPartsAreTheMessagesDeliverSends(t *testing.T) {
	r := newRig(t)
	long := strings.Repeat("A line & <more> of a long answer.\n", 400)
	parts := r.kind.Parts(long)
	if err := r.kind.Deliver(context.Background(), r.ch, privateReply, long); err != nil {
		t.Fatal(err)
	}
	sent := r.fake.Sent()
	if len(parts) < 2 || len(sent) != len(parts) {
		t.Fatalf("%d parts, %d messages sent; want the same, at least 2", len(parts), len(sent))
	}
	for i := range parts {
		if sent[i].Text != HTML(parts[i]) {
			t.Fatalf("message %d = %q; want part %d converted", i, sent[i].Text, i)
		}
	}
}
