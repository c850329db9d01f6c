package feishu

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/pergola-ai/pergola/domain/channel"
	"github.com/pergola-ai/pergola/domain/errs"
	"github.com/pergola-ai/pergola/infra/channels/feishu/feishufake"
)

func TestPushTo(t *testing.T) {
	k := New(nil)
	reply, key, err := k.PushTo("oc_5ad11d72b830411d72b836c20")
	if err != nil || string(reply) != `{"chat_id":"oc_5ad11d72b830411d72b836c20"}` || key != "oc_5ad11d72b830411d72b836c20" {
		t.Errorf("PushTo(oc_…) = %s, %q, %v", reply, key, err)
	}
	for _, bad := range []string{"", "general", "oc_", "ou_5ad11d72b8", "om_5ad11d72b8", "oc_5ad1/reply", "OC_5ad11d72b8"} {
		if _, _, err := k.PushTo(bad); !errors.Is(err, errs.ErrInvalid) || !strings.Contains(err.Error(), "chat_id") ||
			!strings.Contains(err.Error(), "oc_") {
			t.Errorf("PushTo(%q) = %v, want an error on chat_id saying a chat id is oc_…", bad, err)
		}
	}
}

// TestDeliverPushedSendsANewMessage: a PushTo address is sent with the
// send API to the chat, for Feishu and Lark alike, in the conversation
// of the chat's own messages, and a streamed edit edits it.
func TestDeliverPushedSendsANewMessage(t *testing.T) {
	for _, kind := range []channel.Kind{channel.KindFeishu, channel.KindLark} {
		t.Run(string(kind), func(t *testing.T) {
			r := newRig(t, false)
			r.ch.Kind = kind
			reply, key, err := r.kind.PushTo(testChat)
			if err != nil {
				t.Fatal(err)
			}
			event := r.sub.MessageEvent(testAppID, feishufake.Message{EventID: "e9", SenderOpenID: "ou_ann", MessageID: "om_9",
				ChatID: testChat, ChatType: "p2p", Text: "hello"})
			re, err := r.kind.Receive(context.Background(), r.ch, inbound(event, nil))
			if err != nil || len(re.Events) != 1 || re.Events[0].ConversationKey != key {
				t.Fatalf("a message of the chat: %+v, %v; want conversation key %q", re.Events, err, key)
			}
			if err := r.kind.Deliver(context.Background(), r.ch, reply, "**Good morning**"); err != nil {
				t.Fatal(err)
			}
			posts := r.fake.Posts()
			if len(posts) != 1 || posts[0].ChatID != testChat || posts[0].MsgType != "text" || posts[0].Text != "Good morning" || len(r.fake.Replies()) != 0 {
				t.Fatalf("posts %+v, replies %+v; want one new plain-text message in the chat", posts, r.fake.Replies())
			}
			if r.count("POST /open-apis/im/v1/messages") != 1 {
				t.Fatalf("calls %v; want POST /open-apis/im/v1/messages", r.fake.Calls())
			}
			handle, err := r.kind.SendPart(context.Background(), r.ch, reply, 0, "first")
			if err != nil {
				t.Fatal(err)
			}
			if err := r.kind.Edit(context.Background(), r.ch, reply, handle, "first, edited"); err != nil {
				t.Fatal(err)
			}
			if got, _ := r.fake.Text(r.fake.Posts()[1].ID); got != "first, edited" {
				t.Fatalf("the message reads %q after the edit", got)
			}
		})
	}
}

func TestDeliverPushedToAChatWithoutTheBot(t *testing.T) {
	r := newRig(t, false)
	reply, _, _ := r.kind.PushTo("oc_elsewhere")
	err := r.kind.Deliver(context.Background(), r.ch, reply, "hi")
	if !errors.Is(err, errs.ErrInvalid) || !strings.Contains(err.Error(), "230002") || len(r.fake.Posts()) != 0 {
		t.Fatalf("a chat the bot is not in: %v; want invalid with the platform's code, nothing sent", err)
	}
}
