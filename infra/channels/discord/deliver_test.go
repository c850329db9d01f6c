package discord

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/pergola-ai/pergola/domain/channel"
	"github.com/pergola-ai/pergola/domain/errs"
	"github.com/pergola-ai/pergola/infra/channels/delivery"
	"github.com/pergola-ai/pergola/infra/channels/discord/discordfake"
	"github.com/pergola-ai/pergola/infra/egress"
)

// deferred is the reply target of a command the fake issued.
func (r *rig) deferred(t *testing.T) (json.RawMessage, string) {
	t.Helper()
	_, token := r.fake.Interaction(discordfake.Command{ID: "7", ChannelID: "C", UserID: "U", Question: "q"})
	reply, _ := json.Marshal(replyTo{ApplicationID: testAppID, Token: token})
	return reply, token
}

func TestDeliverEditsTheOriginal(t *testing.T) {
	r := newRig(t)
	reply, token := r.deferred(t)
	if err := r.kind.Deliver(context.Background(), r.ch, reply, "**Hi** @everyone, see `code` and @here"); err != nil {
		t.Fatal(err)
	}
	got := r.fake.MessagesOf(token)
	if len(got) != 1 || !got[0].Edit || got[0].Content != "**Hi** @\u200beveryone, see `code` and @\u200bhere" || got[0].ParseMentions == nil || len(got[0].ParseMentions) != 0 {
		t.Fatalf("sent %+v; want one edit of @original, Markdown kept, mass mentions defused, allowed_mentions.parse empty", got)
	}
}

func TestDeliverSplitsIntoFollowUps(t *testing.T) {
	r := newRig(t)
	reply, token := r.deferred(t)
	text := strings.Repeat("line of the answer\n", 250) + "```go\n" + strings.Repeat("x := 1\n", 100) + "```"
	if err := r.kind.Deliver(context.Background(), r.ch, reply, text); err != nil {
		t.Fatal(err)
	}
	got := r.fake.MessagesOf(token)
	if len(got) < 3 {
		t.Fatalf("%d messages; want the %d characters split in at least 3", len(got), len(text))
	}
	var all []string
	for i, m := range got {
		if m.Edit != (i == 0) || delivery.Length(m.Content) > MaxMessage || strings.Count(m.Content, "```")%2 != 0 {
			t.Fatalf("message %d: edit=%v, %d characters, fences balanced=%v", i, m.Edit, len(m.Content), strings.Count(m.Content, "```")%2 == 0)
		}
		all = append(all, m.Content)
	}
	if n := strings.Count(strings.Join(all, "\n"), "line of the answer"); n != 250 {
		t.Fatalf("%d lines arrived; want 250", n)
	}
}

func TestDeliverErrors(t *testing.T) {
	r := newRig(t)
	unknown, _ := json.Marshal(replyTo{ApplicationID: testAppID, Token: "never-issued"})
	otherApp, _ := json.Marshal(replyTo{ApplicationID: "999", Token: "never-issued"})
	cases := []struct {
		name  string
		reply json.RawMessage
		want  error
		words string
	}{
		{"refused interaction token", unknown, errs.ErrUnauthenticated, "Invalid Webhook Token (code 50027)"},
		{"unknown application", otherApp, errs.ErrNotFound, "Unknown Webhook (code 10015)"},
		{"malformed reply", json.RawMessage(`{"token":""}`), errs.ErrInvalid, "reply"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			err := r.kind.Deliver(context.Background(), r.ch, c.reply, "hi")
			if !errors.Is(err, c.want) || !strings.Contains(err.Error(), c.words) || strings.Contains(err.Error(), "never-issued") {
				t.Fatalf("Deliver = %v; want %v with %q, without the token", err, c.want, c.words)
			}
		})
	}
}

func TestDeliverRetries(t *testing.T) {
	r := newRig(t)
	reply, token := r.deferred(t)
	r.fake.FailNext(429, 1.25)
	r.fake.FailNext(502, 0)
	if err := r.kind.Deliver(context.Background(), r.ch, reply, "after a while"); err != nil {
		t.Fatal(err)
	}
	if len(r.fake.MessagesOf(token)) != 1 || len(r.waits) != 2 || r.waits[0] != 1250*time.Millisecond {
		t.Fatalf("sent %d, waited %v; want once, after 1.25s (Retry-After) and a backoff", len(r.fake.MessagesOf(token)), r.waits)
	}
}

// TestDeliverOnceLeavesRetriesToTheRuntime: without retries, a 429 comes
// back with the wait Discord asked for, through RetryAfter().
func TestDeliverOnceLeavesRetriesToTheRuntime(t *testing.T) {
	r := newRig(t)
	r.kind = New(r.kind.client, WithRetry(delivery.NoRetry()))
	reply, token := r.deferred(t)
	r.fake.FailNext(429, 2)
	err := r.kind.Deliver(context.Background(), r.ch, reply, "hi")
	var ra interface{ RetryAfter() time.Duration }
	if !errors.As(err, &ra) || ra.RetryAfter() != 2*time.Second || !errors.Is(err, errs.ErrRateLimited) || len(r.fake.MessagesOf(token)) != 0 {
		t.Fatalf("Deliver = %v; want a rate-limited error asking for 2s, nothing sent", err)
	}
}

func TestPlatform(t *testing.T) {
	r := newRig(t)
	if err := r.kind.CheckCredentials(context.Background(), r.ch); err != nil {
		t.Fatalf("CheckCredentials with the bot's token = %v", err)
	}
	bad := &channel.Channel{Kind: channel.KindDiscord, Settings: channel.Settings{"bot_token": "wrong", "api_base_url": r.fake.APIURL()}}
	err := r.kind.CheckCredentials(context.Background(), bad)
	var fe *errs.FieldError
	if !errors.As(err, &fe) || fe.Field != "settings.bot_token" || !strings.Contains(err.Error(), "401: Unauthorized") {
		t.Fatalf("CheckCredentials with a wrong token = %v; want settings.bot_token with Discord's words", err)
	}
	if calls := r.fake.Calls(); len(calls) != 2 || calls[0] != "GET /users/@me" {
		t.Fatalf("calls = %v", calls)
	}
	for key, ok := range map[string]bool{strings.Repeat("ab", 32): true, strings.Repeat("ab", 31): false, strings.Repeat("zz", 32): false} {
		if err := r.kind.Validate(channel.Settings{"public_key": key}); (err == nil) != ok {
			t.Errorf("Validate(%q) = %v; want ok=%v", key, err, ok)
		}
	}
	if err := r.kind.RegisterWebhook(context.Background(), r.ch, "https://x/channels/discord/9"); err != nil || len(r.fake.Calls()) != 2 {
		t.Fatalf("RegisterWebhook = %v; want nothing called", err)
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
	if !errors.As(err, &fe) || fe.Field != "settings.api_base_url" || !strings.Contains(fe.Reason, "loopback") || len(r.fake.Calls()) != 0 {
		t.Fatalf("err = %v, want settings.api_base_url saying the loopback address is refused", err)
	}
}
