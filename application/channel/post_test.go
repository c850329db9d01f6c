package channel_test

import (
	"context"
	"encoding/json"
	"errors"
	"sync"
	"testing"

	channelapp "github.com/pergola-ai/pergola/application/channel"
	"github.com/pergola-ai/pergola/domain/channel"
	"github.com/pergola-ai/pergola/domain/errs"
)

// pushAdapter is a scriptedAdapter that posts to chats named by digits.
type pushAdapter struct{ *scriptedAdapter }

func (pushAdapter) PushTo(chatID string) (json.RawMessage, string, error) {
	if chatID == "" || chatID[0] < '0' || chatID[0] > '9' {
		return nil, "", errs.Invalid("chat_id", "digits please")
	}
	return json.RawMessage(`{"chat":` + chatID + `}`), "chat:" + chatID, nil
}

// TestPostAnswersIntoTheChatOnce: a posted message is stored and queued
// once per event id, answered by the channel's bot and delivered into the
// chat; the runtime's Done hook hears of it once, delivered.
func TestPostAnswersIntoTheChatOnce(t *testing.T) {
	var mu sync.Mutex
	var done []channel.Delivery
	a := &scriptedAdapter{}
	e := newRuntimeEnvWith(a, nil, func(d *channelapp.RuntimeDeps) {
		d.Adapters = map[channel.Kind]channelapp.Adapter{channel.KindTelegram: pushAdapter{a}}
		d.Done = func(_ context.Context, x *channel.Delivery) { mu.Lock(); done = append(done, *x); mu.Unlock() }
	})
	ctx := context.Background()
	req := channelapp.PostRequest{BotID: 9, ChannelID: 1, ChatID: "42", EventID: "trigger:3:1000", UserID: "trigger:3", Text: "plan"}
	for range 2 {
		if _, err := e.rt.Post(ctx, req); err != nil {
			t.Fatal(err)
		}
	}
	if len(e.queue.payloads) != 1 {
		t.Fatalf("%d messages queued for one event id, want 1", len(e.queue.payloads))
	}
	if err := e.rt.HandleEvent(ctx, e.queue.payloads[0]); err != nil {
		t.Fatal(err)
	}
	d, _ := e.events.GetEvent(ctx, 1)
	if d.Status != channel.DeliveryDelivered || string(d.Reply) != `{"chat":42}` || d.ConversationKey != "chat:42" ||
		d.EndUser != "trigger:3" || len(a.sends) != 1 || a.sends[0] != "echo: plan" {
		t.Fatalf("event = %+v, sends %v", d, a.sends)
	}
	if len(done) != 1 || done[0].Status != channel.DeliveryDelivered || done[0].EventID != req.EventID {
		t.Errorf("Done heard %+v, want the delivered event once", done)
	}
}

func TestCheckPostNamesTheField(t *testing.T) {
	a := &scriptedAdapter{}
	plain := newRuntimeEnv(a)
	pushing := newRuntimeEnvWith(a, nil, func(d *channelapp.RuntimeDeps) {
		d.Adapters = map[channel.Kind]channelapp.Adapter{channel.KindTelegram: pushAdapter{a}}
	})
	ctx := context.Background()
	for _, c := range []struct {
		env     *runtimeEnv
		bot, ch int64
		chat    string
		field   string
	}{
		{pushing, 8, 1, "42", "channel_id"},   // another bot's channel
		{pushing, 9, 404, "42", "channel_id"}, // no such channel
		{plain, 9, 1, "42", "channel_id"},     // a kind that does not post
		{pushing, 9, 1, "general", "chat_id"},
		{pushing, 9, 1, "42", ""},
	} {
		err := c.env.rt.CheckPost(ctx, c.bot, c.ch, c.chat)
		var fe *errs.FieldError
		if c.field == "" && err != nil || c.field != "" && (!errors.As(err, &fe) || fe.Field != c.field) {
			t.Errorf("CheckPost(bot %d, channel %d, %q) = %v, want an error on %q", c.bot, c.ch, c.chat, err, c.field)
		}
	}
}
