package slack

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/pergola-ai/pergola/domain/channel"
	"github.com/pergola-ai/pergola/domain/errs"
	"github.com/pergola-ai/pergola/infra/channels/delivery"
	"github.com/pergola-ai/pergola/infra/egress"
)

var threadReply = json.RawMessage(`{"channel":"C9","thread_ts":"1700000001.000200"}`)

func TestCheckCredentialsOKAndRefused(t *testing.T) {
	r := newRig(t)
	if err := r.kind.CheckCredentials(context.Background(), r.ch); err != nil {
		t.Fatal(err)
	}
	r.ch.Settings["bot_token"] = "xoxb-revoked"
	err := r.kind.CheckCredentials(context.Background(), r.ch)
	var fe *errs.FieldError
	if !errors.As(err, &fe) || fe.Field != "settings.bot_token" || !strings.Contains(fe.Reason, "invalid_auth") {
		t.Fatalf("err = %v, want settings.bot_token quoting invalid_auth", err)
	}
	if got := r.fake.Calls(); len(got) != 2 || got[0] != "auth.test" {
		t.Fatalf("calls = %v", got)
	}
}

func TestRegisterWebhookCallsNothingAndValidateWantsABotToken(t *testing.T) {
	r := newRig(t)
	if err := r.kind.RegisterWebhook(context.Background(), r.ch, "https://x.example/channels/slack/8"); err != nil || len(r.fake.Calls()) != 0 {
		t.Fatalf("err=%v calls=%v", err, r.fake.Calls())
	}
	var fe *errs.FieldError
	if err := r.kind.Validate(channel.Settings{"bot_token": "xoxp-user-token"}); !errors.As(err, &fe) || fe.Field != "settings.bot_token" {
		t.Fatalf("Validate = %v", err)
	}
	if err := r.kind.Validate(channel.Settings{"bot_token": testToken}); err != nil {
		t.Fatal(err)
	}
}

func TestDeliverPostsMrkdwnInTheThread(t *testing.T) {
	r := newRig(t)
	md := "# Title\n**bold** and *it* ~~old~~ <!channel> & [docs](https://x.dev/a?b=1&c=2)\n- `a<b`"
	if err := r.kind.Deliver(context.Background(), r.ch, threadReply, md); err != nil {
		t.Fatal(err)
	}
	got := r.fake.Posted()
	want := "*Title*\n*bold* and _it_ ~old~ &lt;!channel&gt; &amp; <https://x.dev/a?b=1&amp;c=2|docs>\n• `a&lt;b`"
	if len(got) != 1 || got[0].Channel != "C9" || got[0].ThreadTS != "1700000001.000200" || got[0].Text != want {
		t.Fatalf("posted = %+v\nwant text %q", got, want)
	}
}

func TestDeliverSplitsLongAnswers(t *testing.T) {
	r := newRig(t)
	long := strings.Repeat("A line of a long answer with a [link](https://example.com/x).\n", 200)
	if err := r.kind.Deliver(context.Background(), r.ch, json.RawMessage(`{"channel":"D1"}`), long); err != nil {
		t.Fatal(err)
	}
	got := r.fake.Posted()
	if len(got) < 3 {
		t.Fatalf("posted %d messages, want at least 3", len(got))
	}
	links := 0
	for _, p := range got {
		if delivery.Length(p.Text) > MaxMessage || p.ThreadTS != "" || p.Channel != "D1" {
			t.Fatalf("message of %d characters, thread %q, channel %q", delivery.Length(p.Text), p.ThreadTS, p.Channel)
		}
		links += strings.Count(p.Text, "<https://example.com/x|link>")
	}
	if links != 200 {
		t.Fatalf("%d links arrived, want 200", links)
	}
}

func TestDeliverRetries429HonouringRetryAfter(t *testing.T) {
	r := newRig(t)
	r.fake.FailNext(http.StatusTooManyRequests, 4)
	if err := r.kind.Deliver(context.Background(), r.ch, threadReply, "hi"); err != nil {
		t.Fatal(err)
	}
	if len(r.waits) != 1 || r.waits[0] != 4*time.Second || len(r.fake.Posted()) != 1 {
		t.Fatalf("waits=%v posted=%d", r.waits, len(r.fake.Posted()))
	}
}

func TestDeliverWaitsForRealBeforeRetrying(t *testing.T) {
	r := newRig(t)
	r.kind = New(r.client)
	r.fake.FailNext(http.StatusTooManyRequests, 1)
	start := time.Now()
	if err := r.kind.Deliver(context.Background(), r.ch, threadReply, "hi"); err != nil {
		t.Fatal(err)
	}
	if time.Since(start) < time.Second || len(r.fake.Posted()) != 1 {
		t.Fatalf("resent after %s; Slack asked for 1 s", time.Since(start))
	}
}

func TestDeliverGivesUpOnPersistent5xx(t *testing.T) {
	r := newRig(t)
	for i := 0; i < 3; i++ {
		r.fake.FailNext(http.StatusServiceUnavailable, 0)
	}
	err := r.kind.Deliver(context.Background(), r.ch, threadReply, "hi")
	if !errors.Is(err, errs.ErrUnavailable) || len(r.fake.Calls()) != 3 || len(r.waits) != 2 {
		t.Fatalf("err=%v calls=%v waits=%v", err, r.fake.Calls(), r.waits)
	}
}

func TestDeliverReportsInvalidAuthWithoutRetrying(t *testing.T) {
	r := newRig(t)
	r.ch.Settings["bot_token"] = "xoxb-revoked"
	err := r.kind.Deliver(context.Background(), r.ch, threadReply, "hi")
	if !errors.Is(err, errs.ErrUnauthenticated) || !strings.Contains(err.Error(), "invalid_auth") || len(r.fake.Calls()) != 1 {
		t.Fatalf("err=%v calls=%v", err, r.fake.Calls())
	}
}

func TestDeliverReportsOtherSlackErrors(t *testing.T) {
	r := newRig(t)
	err := r.kind.Deliver(context.Background(), r.ch, json.RawMessage(`{"channel":"C9"}`), "   ")
	if err != nil || len(r.fake.Calls()) != 0 {
		t.Fatalf("a blank answer should send nothing: err=%v calls=%v", err, r.fake.Calls())
	}
	if err := r.kind.Deliver(context.Background(), r.ch, json.RawMessage(`{"thread_ts":"1.1"}`), "hi"); !errors.Is(err, errs.ErrInvalid) {
		t.Fatalf("err = %v", err)
	}
}

func TestDeliverGoesThroughTheEgressGuard(t *testing.T) {
	r := newRig(t)
	guard, err := egress.New(egress.Config{})
	if err != nil {
		t.Fatal(err)
	}
	err = New(guard.Client()).Deliver(context.Background(), r.ch, threadReply, "hi")
	if !errors.Is(err, errs.ErrForbidden) || len(r.fake.Calls()) != 0 {
		t.Fatalf("err=%v calls=%v; a loopback API base must be refused unless allowed", err, r.fake.Calls())
	}
}

func TestCheckCredentialsNamesAnAPIBaseTheGuardRefuses(t *testing.T) {
	r := newRig(t)
	guard, err := egress.New(egress.Config{})
	if err != nil {
		t.Fatal(err)
	}
	err = New(guard.Client()).CheckCredentials(context.Background(), r.ch)
	var fe *errs.FieldError
	if !errors.As(err, &fe) || fe.Field != "settings.api_base_url" || !strings.Contains(fe.Reason, "loopback") {
		t.Fatalf("err = %v, want settings.api_base_url saying the loopback address is refused", err)
	}
}

func TestPushTo(t *testing.T) {
	k := New(nil)
	reply, key, err := k.PushTo("C0123ABCD")
	if err != nil || string(reply) != `{"channel":"C0123ABCD"}` || key != "C0123ABCD" {
		t.Errorf("PushTo(C0123ABCD) = %s, %q, %v", reply, key, err)
	}
	for _, bad := range []string{"", "general", "#general", "c0123abcd", "U0123ABCD"} {
		if _, _, err := k.PushTo(bad); !errors.Is(err, errs.ErrInvalid) || !strings.Contains(err.Error(), "chat_id") {
			t.Errorf("PushTo(%q) = %v, want an error on chat_id", bad, err)
		}
	}
}
