package feishu

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/pergola-ai/pergola/domain/errs"
	"github.com/pergola-ai/pergola/infra/channels/delivery"
)

var toMessage = json.RawMessage(`{"message_id":"om_1","chat_id":"oc_1"}`)

func TestDeliverRepliesInPlainText(t *testing.T) {
	r := newRig(t, false)
	if err := r.kind.Deliver(context.Background(), r.ch, toMessage, "## Hi\n**bold** and [docs](https://x.example)"); err != nil {
		t.Fatal(err)
	}
	got := r.fake.Replies()
	if len(got) != 1 || got[0].MessageID != "om_1" || got[0].MsgType != "text" || got[0].Text != "Hi\nbold and docs (https://x.example)" {
		t.Fatalf("replies %+v", got)
	}
}

func TestDeliverSplitsLongAnswers(t *testing.T) {
	r := newRig(t, false)
	line := strings.Repeat("字", 99) + "\n"
	if err := r.kind.Deliver(context.Background(), r.ch, toMessage, strings.Repeat(line, 90)); err != nil {
		t.Fatal(err)
	}
	got := r.fake.Replies()
	total := 0
	for _, m := range got {
		if n := delivery.Length(m.Text); n > MaxMessage {
			t.Fatalf("a reply of %d characters; want at most %d", n, MaxMessage)
		}
		total += strings.Count(m.Text, "字")
	}
	if len(got) != 3 || total != 99*90 {
		t.Fatalf("%d replies with %d characters; want 3 holding all %d", len(got), total, 99*90)
	}
	if n := r.count(tokenPath); n != 1 {
		t.Fatalf("token fetched %d times for 3 replies; want once (cached)", n)
	}
}

func TestDeliverRetriesRateLimitsAndOutages(t *testing.T) {
	r := newRig(t, false)
	r.fake.FailNext(429, 3)
	r.fake.FailNext(502, 0)
	if err := r.kind.Deliver(context.Background(), r.ch, toMessage, "hi"); err != nil {
		t.Fatal(err)
	}
	if len(r.fake.Replies()) != 1 || len(r.waits) != 2 || r.waits[0] != 3*time.Second {
		t.Fatalf("replies %d, waits %v; want one reply after waiting the 3 s asked for, then a backoff", len(r.fake.Replies()), r.waits)
	}
}

func TestDeliverOnceShowsRetryAfter(t *testing.T) {
	r := newRig(t, false)
	r.kind.retry = delivery.NoRetry()
	r.fake.FailNext(429, 7)
	err := r.kind.Deliver(context.Background(), r.ch, toMessage, "hi")
	var ra interface{ RetryAfter() time.Duration }
	if !errors.As(err, &ra) || ra.RetryAfter() != 7*time.Second || !errors.Is(err, errs.ErrRateLimited) {
		t.Fatalf("429 without retries: %v; want rate limited with RetryAfter 7s", err)
	}
	r.fake.FailNext(503, 0)
	if err := r.kind.Deliver(context.Background(), r.ch, toMessage, "hi"); !errors.As(err, &ra) || !errors.Is(err, errs.ErrUnavailable) {
		t.Fatalf("503 without retries: %v; want retryable unavailable", err)
	}
}

func TestDeliverRefreshesARefusedTokenOnce(t *testing.T) {
	r := newRig(t, false)
	if err := r.kind.Deliver(context.Background(), r.ch, toMessage, "one"); err != nil {
		t.Fatal(err)
	}
	r.fake.RevokeTokens()
	if err := r.kind.Deliver(context.Background(), r.ch, toMessage, "two"); err != nil {
		t.Fatalf("after the token was revoked: %v; want sent with a fresh token", err)
	}
	if n := r.count(tokenPath); n != 2 || len(r.fake.Replies()) != 2 {
		t.Fatalf("tokens fetched %d, replies %d; want 2 and 2", n, len(r.fake.Replies()))
	}
}

func TestDeliverRefusedTokenIsUnauthenticated(t *testing.T) {
	r := newRig(t, false)
	r.fake.RefuseTokens()
	err := r.kind.Deliver(context.Background(), r.ch, toMessage, "hi")
	if !errors.Is(err, errs.ErrUnauthenticated) || !strings.Contains(err.Error(), "code 99991663: Invalid access token") {
		t.Fatalf("tokens refused: %v; want unauthenticated with the platform's words", err)
	}
	if n := r.count(tokenPath); n != 2 || len(r.waits) != 0 {
		t.Fatalf("tokens fetched %d, waits %v; want one refresh and no retries", n, r.waits)
	}
	r.ch.Settings["app_secret"] = "revoked-secret"
	err = r.kind.Deliver(context.Background(), r.ch, toMessage, "hi")
	if !errors.Is(err, errs.ErrUnauthenticated) || !strings.Contains(err.Error(), "code 10014: app secret invalid") {
		t.Fatalf("a refused app secret on send: %v; want unauthenticated with the platform's words", err)
	}
}

func TestDeliverRefusesAMalformedReply(t *testing.T) {
	r := newRig(t, false)
	for _, reply := range []string{`{}`, `{"chat_id":"general"}`, `{"message_id":""}`, `[]`} {
		if err := r.kind.Deliver(context.Background(), r.ch, json.RawMessage(reply), "hi"); !errors.Is(err, errs.ErrInvalid) {
			t.Fatalf("reply %s: %v; want invalid", reply, err)
		}
	}
}
