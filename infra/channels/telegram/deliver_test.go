package telegram

import (
	"context"
	"encoding/json"
	"errors"
	"html"
	"net/http"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/pergola-ai/pergola/domain/errs"
	"github.com/pergola-ai/pergola/infra/channels/delivery"
	"github.com/pergola-ai/pergola/infra/egress"
)

var privateReply = json.RawMessage(`{"chat_id":42,"message_id":11}`)

func TestDeliverConvertsMarkdownToTelegramHTML(t *testing.T) {
	r := newRig(t)
	md := "## Plan\n**Bold** and *it* <script>alert(1)</script> & `a<b` see [docs](https://x.dev/a_b?q=1&r=2)\n- item"
	if err := r.kind.Deliver(context.Background(), r.ch, privateReply, md); err != nil {
		t.Fatal(err)
	}
	sent := r.fake.Sent()
	if len(sent) != 1 || sent[0].ParseMode != "HTML" || sent[0].ChatID != 42 || sent[0].ReplyTo != 11 {
		t.Fatalf("sent = %+v", sent)
	}
	want := "<b>Plan</b>\n<b>Bold</b> and <i>it</i> &lt;script&gt;alert(1)&lt;/script&gt; &amp; <code>a&lt;b</code> see " +
		`<a href="https://x.dev/a_b?q=1&amp;r=2">docs</a>` + "\n• item"
	if sent[0].Text != want {
		t.Fatalf("text =\n%s\nwant\n%s", sent[0].Text, want)
	}
}

func TestDeliverSplitsLongAnswersAtTelegramsLimit(t *testing.T) {
	r := newRig(t)
	var b strings.Builder
	for i := 0; b.Len() < 10000; i++ {
		b.WriteString("A sentence of the long answer & more <text>.\n")
	}
	b.WriteString("```\n" + strings.Repeat("code line\n", 500) + "```\n")
	if err := r.kind.Deliver(context.Background(), r.ch, privateReply, b.String()); err != nil {
		t.Fatal(err)
	}
	sent := r.fake.Sent()
	if len(sent) < 4 {
		t.Fatalf("sent %d messages, want at least 4", len(sent))
	}
	var shown strings.Builder
	for i, m := range sent {
		if (i == 0) != (m.ReplyTo == 11) {
			t.Fatalf("message %d reply_to = %d; only the first replies", i, m.ReplyTo)
		}
		shown.WriteString(html.UnescapeString(regexp.MustCompile(`<[^>]+>`).ReplaceAllString(m.Text, "")))
	}
	if strings.Count(shown.String(), "A sentence") != strings.Count(b.String(), "A sentence") ||
		strings.Count(shown.String(), "code line") != 500 {
		t.Fatal("the pieces do not add up to the answer")
	}
}

func TestDeliverSendsTrickyMarkdownTelegramAccepts(t *testing.T) {
	r := newRig(t)
	for _, md := range []string{
		"**unclosed bold and *stray star", "snake_case_name and __init__", "a < b && c > d \"q\" 'x'",
		"```\nunclosed <fence> &", "[not a link](javascript:alert(1))", "*a **b** c*", "`code **not bold**`",
		"~~gone~~ 5*3*2", "<b>raw html</b>", "\x00held\x00 0 \x000\x00",
	} {
		if err := r.kind.Deliver(context.Background(), r.ch, privateReply, md); err != nil {
			t.Fatalf("%q: %v", md, err)
		}
	}
	for _, m := range r.fake.Sent() {
		if m.ParseMode != "HTML" {
			t.Fatalf("%q fell back to plain text", m.Text)
		}
		if strings.Contains(m.Text, "javascript:") && strings.Contains(m.Text, "<a ") {
			t.Fatalf("made a javascript: link: %s", m.Text)
		}
	}
}

func TestDeliverRetries429HonouringRetryAfter(t *testing.T) {
	r := newRig(t)
	r.fake.FailNext(http.StatusTooManyRequests, 3)
	if err := r.kind.Deliver(context.Background(), r.ch, privateReply, "hi"); err != nil {
		t.Fatal(err)
	}
	if len(r.waits) != 1 || r.waits[0] != 3*time.Second || len(r.fake.Sent()) != 1 {
		t.Fatalf("waits=%v sent=%d", r.waits, len(r.fake.Sent()))
	}
}

func TestDeliverWaitsForRealBeforeRetrying(t *testing.T) {
	r := newRig(t)
	r.kind = New(r.client)
	r.fake.FailNext(http.StatusTooManyRequests, 1)
	start := time.Now()
	if err := r.kind.Deliver(context.Background(), r.ch, privateReply, "hi"); err != nil {
		t.Fatal(err)
	}
	if time.Since(start) < time.Second || len(r.fake.Sent()) != 1 {
		t.Fatalf("resent after %s, sent=%d; Telegram asked for 1 s", time.Since(start), len(r.fake.Sent()))
	}
}

func TestDeliverGivesUpOnPersistent5xx(t *testing.T) {
	r := newRig(t)
	for i := 0; i < 3; i++ {
		r.fake.FailNext(http.StatusInternalServerError, 0)
	}
	err := r.kind.Deliver(context.Background(), r.ch, privateReply, "hi")
	if !errors.Is(err, errs.ErrUnavailable) || len(r.fake.Calls()) != 3 || len(r.fake.Sent()) != 0 {
		t.Fatalf("err=%v calls=%v", err, r.fake.Calls())
	}
}

func TestDeliverReportsARefusedTokenWithoutRetrying(t *testing.T) {
	r := newRig(t)
	r.ch.Settings["bot_token"] = "1:revoked"
	err := r.kind.Deliver(context.Background(), r.ch, privateReply, "hi")
	if !errors.Is(err, errs.ErrUnauthenticated) || !strings.Contains(err.Error(), "Unauthorized") || len(r.fake.Calls()) != 1 {
		t.Fatalf("err=%v calls=%v", err, r.fake.Calls())
	}
	if strings.Contains(err.Error(), "1:revoked") {
		t.Fatalf("the error shows the token: %v", err)
	}
}

func TestDeliverGoesThroughTheEgressGuard(t *testing.T) {
	r := newRig(t)
	guard, err := egress.New(egress.Config{})
	if err != nil {
		t.Fatal(err)
	}
	k := New(guard.Client(), WithRetry(delivery.Policy{Attempts: 3, Budget: time.Second}))
	err = k.Deliver(context.Background(), r.ch, privateReply, "hi")
	if !errors.Is(err, errs.ErrForbidden) || len(r.fake.Calls()) != 0 {
		t.Fatalf("err=%v calls=%v; a loopback API base must be refused unless allowed", err, r.fake.Calls())
	}
	if strings.Contains(err.Error(), testToken) {
		t.Fatalf("the error shows the token: %v", err)
	}
}

func TestDeliverRefusesAMalformedReply(t *testing.T) {
	r := newRig(t)
	if err := r.kind.Deliver(context.Background(), r.ch, json.RawMessage(`{"channel":"C1"}`), "hi"); !errors.Is(err, errs.ErrInvalid) {
		t.Fatalf("err = %v", err)
	}
}

func TestPushTo(t *testing.T) {
	k := New(nil)
	reply, key, err := k.PushTo("-100123:7")
	if err != nil || string(reply) != `{"chat_id":-100123,"message_thread_id":7,"message_id":0}` || key != "-100123:7" {
		t.Errorf("PushTo(-100123:7) = %s, %q, %v", reply, key, err)
	}
	for _, bad := range []string{"", "general", "0", "12:x", "12:-1"} {
		if _, _, err := k.PushTo(bad); !errors.Is(err, errs.ErrInvalid) || !strings.Contains(err.Error(), "chat_id") {
			t.Errorf("PushTo(%q) = %v, want an error on chat_id", bad, err)
		}
	}
}
