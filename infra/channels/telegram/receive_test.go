package telegram

import (
	"context"
	"encoding/json"
	"errors"
	"testing"

	"github.com/pergola-ai/pergola/domain/errs"
)

const privateUpdate = `{"update_id":501,"message":{"message_id":11,"from":{"id":42,"is_bot":false,"first_name":"Ann"},
 "chat":{"id":42,"type":"private"},"date":1700000000,"text":"what is pergola?"}}`

func TestReceiveRefusesAMissingOrWrongSecret(t *testing.T) {
	r := newRig(t)
	for name, secret := range map[string]string{"missing": "", "wrong": "not-the-secret", "prefix": testSecret[:5]} {
		t.Run(name, func(t *testing.T) {
			_, err := r.kind.Receive(context.Background(), r.ch, inbound(privateUpdate, secret))
			if !errors.Is(err, errs.ErrUnauthenticated) {
				t.Fatalf("err = %v, want ErrUnauthenticated", err)
			}
		})
	}
}

func TestReceiveParsesAPrivateMessage(t *testing.T) {
	r := newRig(t)
	re, err := r.kind.Receive(context.Background(), r.ch, inbound(privateUpdate, testSecret))
	if err != nil || len(re.Events) != 1 {
		t.Fatalf("events=%v err=%v", re.Events, err)
	}
	e := re.Events[0]
	if e.ID != "501" || e.UserID != "42" || e.ConversationKey != "42" || e.Text != "what is pergola?" || e.NotText {
		t.Fatalf("event = %+v", e)
	}
	var to replyTo
	if json.Unmarshal(e.Reply, &to) != nil || to.ChatID != 42 || to.MessageID != 11 {
		t.Fatalf("reply = %s", e.Reply)
	}
	if calls := r.fake.Calls(); len(calls) != 0 {
		t.Fatalf("a private message needs no API call, made %v", calls)
	}
}

func group(text, entities, extra string) string {
	return `{"update_id":700,"message":{"message_id":5,"from":{"id":43,"is_bot":false,"first_name":"Bo"},
	 "chat":{"id":-100200,"type":"supergroup"},"text":` + text + `,"entities":` + entities + extra + `}}`
}

func TestReceiveAnswersInGroupsOnlyWhenAddressed(t *testing.T) {
	cases := []struct {
		name, body, text string
		answered         bool
	}{
		{"plain chatter", group(`"hello all"`, `[]`, ``), "", false},
		{"mention", group(`"@PergolaTestBot what time is it"`, `[{"type":"mention","offset":0,"length":15}]`, ``), "what time is it", true},
		{"mention in the middle, other case", group(`"hey @pergolatestbot help"`, `[{"type":"mention","offset":4,"length":15}]`, ``), "hey help", true},
		{"someone else mentioned", group(`"@OtherBot hi"`, `[{"type":"mention","offset":0,"length":9}]`, ``), "", false},
		{"command to the bot", group(`"/ask@PergolaTestBot why"`, `[{"type":"bot_command","offset":0,"length":19}]`, ``), "/ask why", true},
		{"reply to the bot", group(`"and then?"`, `[]`, `,"reply_to_message":{"message_id":4,"from":{"id":123456,"is_bot":true},"chat":{"id":-100200,"type":"supergroup"}}`), "and then?", true},
		{"reply to a person", group(`"and then?"`, `[]`, `,"reply_to_message":{"message_id":4,"from":{"id":44,"is_bot":false},"chat":{"id":-100200,"type":"supergroup"}}`), "", false},
		{"emoji before the mention", group(`"😀 @PergolaTestBot hi"`, `[{"type":"mention","offset":3,"length":15}]`, ``), "😀 hi", true},
	}
	r := newRig(t)
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			re, err := r.kind.Receive(context.Background(), r.ch, inbound(tc.body, testSecret))
			if err != nil {
				t.Fatal(err)
			}
			if got := len(re.Events) == 1; got != tc.answered {
				t.Fatalf("answered = %v, want %v", got, tc.answered)
			}
			if tc.answered && (re.Events[0].Text != tc.text || re.Events[0].ConversationKey != "-100200") {
				t.Fatalf("event = %+v, want text %q", re.Events[0], tc.text)
			}
		})
	}
	if calls := r.fake.Calls(); len(calls) != 1 || calls[0] != "getMe" {
		t.Fatalf("the bot's username should be asked once, calls = %v", calls)
	}
}

func TestReceiveSkipsBotsAndOtherUpdates(t *testing.T) {
	r := newRig(t)
	for name, body := range map[string]string{
		"own or other bot":  `{"update_id":9,"message":{"message_id":1,"from":{"id":123456,"is_bot":true},"chat":{"id":42,"type":"private"},"text":"echo"}}`,
		"edited message":    `{"update_id":10,"edited_message":{"message_id":1,"from":{"id":42},"chat":{"id":42,"type":"private"},"text":"x"}}`,
		"channel post chat": `{"update_id":11,"message":{"message_id":1,"from":{"id":42},"chat":{"id":-5,"type":"channel"},"text":"x"}}`,
	} {
		re, err := r.kind.Receive(context.Background(), r.ch, inbound(body, testSecret))
		if err != nil || len(re.Events) != 0 {
			t.Fatalf("%s: events=%v err=%v", name, re.Events, err)
		}
	}
}

func TestReceiveMarksMessagesWithoutText(t *testing.T) {
	r := newRig(t)
	body := `{"update_id":12,"message":{"message_id":3,"from":{"id":42,"is_bot":false},"chat":{"id":42,"type":"private"},"sticker":{"file_id":"x"}}}`
	re, err := r.kind.Receive(context.Background(), r.ch, inbound(body, testSecret))
	if err != nil || len(re.Events) != 1 || !re.Events[0].NotText {
		t.Fatalf("events=%+v err=%v", re.Events, err)
	}
}

func TestReceiveRefusesABodyThatIsNotAnUpdate(t *testing.T) {
	r := newRig(t)
	for _, body := range []string{`not json`, `{}`, `[1,2]`} {
		if _, err := r.kind.Receive(context.Background(), r.ch, inbound(body, testSecret)); !errors.Is(err, errs.ErrInvalid) {
			t.Fatalf("%s: err = %v, want ErrInvalid", body, err)
		}
	}
}

func TestReceiveInAGroupWithARevokedTokenIsUnavailableNotUnauthenticated(t *testing.T) {
	r := newRig(t)
	r.ch.Settings["bot_token"] = "1:revoked"
	body := group(`"@PergolaTestBot hi"`, `[{"type":"mention","offset":0,"length":15}]`, ``)
	_, err := r.kind.Receive(context.Background(), r.ch, inbound(body, testSecret))
	if !errors.Is(err, errs.ErrUnavailable) || errors.Is(err, errs.ErrUnauthenticated) {
		t.Fatalf("err = %v, want ErrUnavailable only", err)
	}
}
