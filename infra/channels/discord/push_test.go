package discord

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/pergola-ai/pergola/domain/errs"
	"github.com/pergola-ai/pergola/infra/channels/discord/discordfake"
)

func TestPushTo(t *testing.T) {
	k := New(nil)
	reply, key, err := k.PushTo("1100000000000000009")
	if err != nil || string(reply) != `{"channel_id":"1100000000000000009"}` || key != "1100000000000000009" {
		t.Errorf("PushTo(1100000000000000009) = %s, %q, %v", reply, key, err)
	}
	for _, bad := range []string{"", "general", "#general", "123", "0100000000000000009", "1100000000000000009/x", "<#1100000000000000009>"} {
		if _, _, err := k.PushTo(bad); !errors.Is(err, errs.ErrInvalid) || !strings.Contains(err.Error(), "chat_id") ||
			!strings.Contains(err.Error(), "Discord channel id") {
			t.Errorf("PushTo(%q) = %v, want an error on chat_id saying what a channel id looks like", bad, err)
		}
	}
}

// TestDeliverPushedPostsInTheChannel: a PushTo address is sent as new
// messages of the channel, as the bot, and streamed edits edit them.
func TestDeliverPushedPostsInTheChannel(t *testing.T) {
	r := newRig(t)
	reply, key, err := r.kind.PushTo(testChannel)
	if err != nil {
		t.Fatal(err)
	}
	// The key is the one the channel's slash commands have.
	body, _ := r.fake.Interaction(discordfake.Command{ID: "30", ChannelID: testChannel, UserID: "1100000000000000005", Question: "hi"})
	re, err := r.kind.Receive(context.Background(), r.ch, inbound(body, r.fake.Headers(body, time.Now())))
	if err != nil || len(re.Events) != 1 || re.Events[0].ConversationKey != key {
		t.Fatalf("a command in the channel: %+v, %v; want conversation key %q", re.Events, err, key)
	}
	text := "Good morning @everyone\n\n" + strings.Repeat("news of the day\n", 200)
	if err := r.kind.Deliver(context.Background(), r.ch, reply, text); err != nil {
		t.Fatal(err)
	}
	got := r.fake.MessagesIn(testChannel)
	if len(got) != 2 || got[0].Edit || got[1].Edit || got[0].Token != "" || !strings.HasPrefix(got[0].Content, "Good morning @\u200beveryone") ||
		got[0].ParseMentions == nil || len(got[0].ParseMentions) != 0 {
		t.Fatalf("posted %+v; want two new messages in the channel, mass mention defused, pinging no one", got)
	}
	if calls := r.fake.Calls(); calls[len(calls)-1] != "POST /channels/"+testChannel+"/messages" {
		t.Fatalf("calls %v; want POST /channels/{id}/messages", calls)
	}
	handle, err := r.kind.SendPart(context.Background(), r.ch, reply, 0, "first")
	if err != nil {
		t.Fatal(err)
	}
	if err := r.kind.Edit(context.Background(), r.ch, reply, handle, "first, edited"); err != nil {
		t.Fatal(err)
	}
	got = r.fake.MessagesIn(testChannel)
	if last := got[len(got)-1]; !last.Edit || last.Content != "first, edited" || last.ID != got[len(got)-2].ID {
		t.Fatalf("edit %+v; want the message just posted edited", last)
	}
}

func TestDeliverPushedErrors(t *testing.T) {
	r := newRig(t)
	other, _, _ := r.kind.PushTo("1100000000000000077")
	if err := r.kind.Deliver(context.Background(), r.ch, other, "hi"); !errors.Is(err, errs.ErrNotFound) || !strings.Contains(err.Error(), "Unknown Channel (code 10003)") {
		t.Fatalf("a channel the bot cannot see: %v; want not found with Discord's words", err)
	}
	reply, _, _ := r.kind.PushTo(testChannel)
	r.ch.Settings["bot_token"] = "wrong"
	if err := r.kind.Deliver(context.Background(), r.ch, reply, "hi"); !errors.Is(err, errs.ErrUnauthenticated) {
		t.Fatalf("a refused bot token: %v; want unauthenticated", err)
	}
	if err := r.kind.Deliver(context.Background(), r.ch, json.RawMessage(`{"channel_id":"general"}`), "hi"); !errors.Is(err, errs.ErrInvalid) {
		t.Fatalf("a malformed channel id: %v; want invalid", err)
	}
	if n := len(r.fake.MessagesIn(testChannel)); n != 0 {
		t.Fatalf("%d messages posted; want none", n)
	}
}
