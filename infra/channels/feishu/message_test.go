package feishu

import (
	"context"
	"encoding/json"
	"testing"

	"github.com/google/go-cmp/cmp"

	appchannel "github.com/pergola-ai/pergola/application/channel"
	"github.com/pergola-ai/pergola/infra/channels/feishu/feishufake"
)

func TestReceiveParsesMessages(t *testing.T) {
	group := func(id, text string, mentions map[string]string) feishufake.Message {
		return feishufake.Message{EventID: id, SenderOpenID: "ou_bob", MessageID: "om_" + id, ChatID: "oc_group", ChatType: "group", Text: text, Mentions: mentions}
	}
	cases := []struct {
		name string
		msg  feishufake.Message
		want []appchannel.Event
	}{
		{"direct message", p2p("e1", " hello  there "), []appchannel.Event{{ID: "e1", UserID: "ou_ann", ConversationKey: "oc_ann", Text: "hello there",
			Reply: json.RawMessage(`{"message_id":"om_e1","chat_id":"oc_ann"}`)}}},
		{"group mention, others named", group("e2", "@_user_1 ask @_user_2", map[string]string{"@_user_1": botOpenID, "@_user_2": "ou_carol"}),
			[]appchannel.Event{{ID: "e2", UserID: "ou_bob", ConversationKey: "oc_group", Text: "ask @Name of ou_carol",
				Reply: json.RawMessage(`{"message_id":"om_e2","chat_id":"oc_group"}`)}}},
		{"group without mention", group("e3", "chatter", nil), nil},
		{"group mentioning someone else", group("e4", "@_user_1 hi", map[string]string{"@_user_1": "ou_carol"}), nil},
		{"another bot's message", func() feishufake.Message { m := p2p("e5", "beep"); m.SenderType = "app"; return m }(), nil},
		{"an image", func() feishufake.Message { m := p2p("e6", ""); m.MessageType = "image"; return m }(),
			[]appchannel.Event{{ID: "e6", UserID: "ou_ann", ConversationKey: "oc_ann", NotText: true,
				Reply: json.RawMessage(`{"message_id":"om_e6","chat_id":"oc_ann"}`)}}},
	}
	r := newRig(t, false)
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			re, err := r.kind.Receive(context.Background(), r.ch, inbound(r.sub.MessageEvent(testAppID, tc.msg), nil))
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tc.want, re.Events); diff != "" {
				t.Fatalf("events (-want +got):\n%s", diff)
			}
		})
	}
	if n := r.count(botInfoPath); n != 1 {
		t.Fatalf("bot info asked %d times; want once (cached)", n)
	}
}

func TestReceiveIgnoresOtherEvents(t *testing.T) {
	r := newRig(t, false)
	body := []byte(`{"schema":"2.0","header":{"event_id":"e9","event_type":"im.chat.member.bot.added_v1","token":"` + testToken + `"},"event":{}}`)
	re, err := r.kind.Receive(context.Background(), r.ch, inbound(body, nil))
	if err != nil || len(re.Events) != 0 || len(re.Body) != 0 {
		t.Fatalf("other event = %+v, %v; want nothing to answer", re, err)
	}
}
