package line

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/pergola-ai/pergola/domain/errs"
	"github.com/pergola-ai/pergola/infra/channels/delivery"
	"github.com/pergola-ai/pergola/infra/channels/line/linefake"
)

// event is the reply target of a fresh direct message of Uann.
func (r *rig) event(t *testing.T, id string) json.RawMessage {
	t.Helper()
	return r.receive(t, r.fake.Event(linefake.Message{EventID: id, UserID: "Uann", Text: "hi"})).Events[0].Reply
}

func TestDeliverRepliesWithTheReplyTokenAsPlainText(t *testing.T) {
	r := newRig(t)
	err := r.kind.Deliver(context.Background(), r.ch, r.event(t, "E1"), "**Hello** see [docs](https://example.com/d)")
	if err != nil {
		t.Fatal(err)
	}
	sent := r.fake.Sent()
	if len(sent) != 1 || sent[0].Via != "reply" || sent[0].To != "Uann" || sent[0].Texts[0] != "Hello see docs (https://example.com/d)" {
		t.Fatalf("sent %+v; want one plain-text reply", sent)
	}
}

func TestDeliverPushesWhenTheReplyTokenExpired(t *testing.T) {
	r := newRig(t)
	reply := r.event(t, "E2")
	r.fake.ExpireReplyTokens()
	if err := r.kind.Deliver(context.Background(), r.ch, reply, "late answer"); err != nil {
		t.Fatal(err)
	}
	sent := r.fake.Sent()
	if len(sent) != 1 || sent[0].Via != "push" || sent[0].To != "Uann" || sent[0].Texts[0] != "late answer" {
		t.Fatalf("sent %+v; want the answer pushed to the user", sent)
	}
	// The runtime retrying the same delivery: LINE already took the push.
	if err := r.kind.Deliver(context.Background(), r.ch, reply, "late answer"); err != nil || len(r.fake.Sent()) != 1 {
		t.Fatalf("second attempt: err %v, sent %d; want nil and still one push", err, len(r.fake.Sent()))
	}
}

func TestDeliverSplitsAtFiveThousandAndFiveMessagesACall(t *testing.T) {
	r := newRig(t)
	line := strings.Repeat("x", 999) + "\n"
	if err := r.kind.Deliver(context.Background(), r.ch, r.event(t, "E3"), strings.Repeat(line, 35)); err != nil {
		t.Fatal(err)
	}
	sent := r.fake.Sent()
	if len(sent) != 2 || sent[0].Via != "reply" || sent[1].Via != "push" || len(sent[0].Texts) != 5 {
		t.Fatalf("sent %d calls %+v; want a reply of 5 messages then a push", len(sent), sent)
	}
	total := 0
	for _, s := range sent {
		for _, text := range s.Texts {
			if delivery.Length(text) > MaxMessage {
				t.Fatalf("a message of %d characters", delivery.Length(text))
			}
			total += strings.Count(text, "x")
		}
	}
	if total != 35*999 {
		t.Fatalf("%d characters arrived; want %d", total, 35*999)
	}
}

func TestDeliverRetriesRateLimitsAndServerErrors(t *testing.T) {
	r := newRig(t)
	r.fake.FailNext(429, 2)
	r.fake.FailNext(500, 0)
	if err := r.kind.Deliver(context.Background(), r.ch, r.event(t, "E4"), "after a while"); err != nil {
		t.Fatal(err)
	}
	if len(r.waits) != 2 || r.waits[0] != 2*time.Second {
		t.Fatalf("waits %v; want 2 s (Retry-After) then a backoff", r.waits)
	}
	if sent := r.fake.Sent(); len(sent) != 1 || sent[0].Via != "reply" {
		t.Fatalf("sent %+v; want one reply", sent)
	}
}

func TestDeliverErrorsForTheRuntime(t *testing.T) {
	r := newRig(t)
	once := New(r.kindClient(t), WithRetry(delivery.NoRetry()))
	r.fake.FailNext(429, 7)
	err := once.Deliver(context.Background(), r.ch, r.event(t, "E5"), "x")
	var ra interface{ RetryAfter() time.Duration }
	if !errors.As(err, &ra) || ra.RetryAfter() != 7*time.Second || !errors.Is(err, errs.ErrRateLimited) {
		t.Fatalf("429: err = %v; want rate limited with RetryAfter 7s", err)
	}
	r.ch.Settings["channel_access_token"] = "revoked-token"
	err = once.Deliver(context.Background(), r.ch, r.event(t, "E6"), "x")
	if !errors.Is(err, errs.ErrUnauthenticated) || !strings.Contains(err.Error(), "Authentication failed") {
		t.Fatalf("refused token: err = %v; want ErrUnauthenticated with LINE's words", err)
	}
	if err := once.Deliver(context.Background(), r.ch, json.RawMessage(`{}`), "x"); !errors.Is(err, errs.ErrInvalid) {
		t.Fatalf("reply without a target: err = %v, want ErrInvalid", err)
	}
}
