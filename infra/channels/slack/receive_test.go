package slack

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"strings"
	"testing"
	"time"

	appchannel "github.com/pergola-ai/pergola/application/channel"
	"github.com/pergola-ai/pergola/domain/errs"
)

func callback(eventJSON string) string {
	return `{"type":"event_callback","team_id":"T1","event_id":"Ev01","event_time":1700000000,
	 "authorizations":[{"team_id":"T1","user_id":"` + botUserID + `","is_bot":true}],"event":` + eventJSON + `}`
}

const dm = `{"type":"message","channel_type":"im","channel":"D1","user":"U42","text":"what is 1 &lt; 2 &amp; more?","ts":"1700000000.000100"}`

func TestReceiveRefusesUnsignedForgedAndStaleRequests(t *testing.T) {
	r := newRig(t)
	body := callback(dm)
	unsigned := appchannel.Inbound{Header: http.Header{}.Get, Body: []byte(body)}
	forged := signed(body, "another-signing-secret", time.Now())
	tampered := signed(body, testSigning, time.Now())
	tampered.Body = []byte(strings.Replace(body, "U42", "U43", 1))
	cases := map[string]appchannel.Inbound{
		"unsigned": unsigned, "forged": forged, "tampered body": tampered,
		"stale":  signed(body, testSigning, time.Now().Add(-6*time.Minute)),
		"future": signed(body, testSigning, time.Now().Add(6*time.Minute)),
	}
	for name, in := range cases {
		t.Run(name, func(t *testing.T) {
			re, err := r.kind.Receive(context.Background(), r.ch, in)
			if !errors.Is(err, errs.ErrUnauthenticated) || len(re.Events) != 0 {
				t.Fatalf("err = %v, want ErrUnauthenticated", err)
			}
		})
	}
}

func TestReceiveAcceptsASignatureWithinFiveMinutes(t *testing.T) {
	r := newRig(t)
	re, err := r.kind.Receive(context.Background(), r.ch, signed(callback(dm), testSigning, time.Now().Add(-4*time.Minute)))
	if err != nil || len(re.Events) != 1 {
		t.Fatalf("events=%v err=%v", re.Events, err)
	}
}

func TestReceiveAnswersTheURLVerificationChallenge(t *testing.T) {
	r := newRig(t)
	body := `{"token":"Jhj5dZrVaK7ZwHHjRyZWjbDl","challenge":"3eZbrw1aBm2rZgRNFdxV2595E9CY3gmdALWMmHkvFXO7tYXAYM8P","type":"url_verification"}`
	re, err := r.kind.Receive(context.Background(), r.ch, signed(body, testSigning, time.Now()))
	if err != nil {
		t.Fatal(err)
	}
	var got map[string]string
	if json.Unmarshal(re.Body, &got) != nil || got["challenge"] != "3eZbrw1aBm2rZgRNFdxV2595E9CY3gmdALWMmHkvFXO7tYXAYM8P" || re.ContentType != "application/json" || len(re.Events) != 0 {
		t.Fatalf("reaction = %+v", re)
	}
	if _, err := r.kind.Receive(context.Background(), r.ch, signed(body, "wrong-secret", time.Now())); !errors.Is(err, errs.ErrUnauthenticated) {
		t.Fatalf("an unsigned challenge was answered: %v", err)
	}
}

func TestReceiveParsesADirectMessage(t *testing.T) {
	r := newRig(t)
	re, err := r.kind.Receive(context.Background(), r.ch, signed(callback(dm), testSigning, time.Now()))
	if err != nil || len(re.Events) != 1 {
		t.Fatalf("events=%v err=%v", re.Events, err)
	}
	e := re.Events[0]
	if e.ID != "Ev01" || e.UserID != "U42" || e.ConversationKey != "D1" || e.Text != "what is 1 < 2 & more?" || e.NotText {
		t.Fatalf("event = %+v", e)
	}
	var to replyTo
	if json.Unmarshal(e.Reply, &to) != nil || to.Channel != "D1" || to.ThreadTS != "" {
		t.Fatalf("reply = %s", e.Reply)
	}
}

func TestReceiveAnswersAMentionInItsThread(t *testing.T) {
	r := newRig(t)
	cases := []struct{ name, event, key, thread, text string }{
		{"new thread", `{"type":"app_mention","channel":"C9","user":"U42","text":"<@UBOT1> summarise this","ts":"1700000001.000200"}`,
			"C9:1700000001.000200", "1700000001.000200", "summarise this"},
		{"inside a thread", `{"type":"app_mention","channel":"C9","user":"U42","text":"and <@UBOT1> then?","ts":"1700000003.000400","thread_ts":"1700000001.000200"}`,
			"C9:1700000001.000200", "1700000001.000200", "and then?"},
		{"other people kept", `{"type":"app_mention","channel":"C9","user":"U42","text":"<@UBOT1> ask <@U77>","ts":"5.1"}`,
			"C9:5.1", "5.1", "ask <@U77>"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			re, err := r.kind.Receive(context.Background(), r.ch, signed(callback(tc.event), testSigning, time.Now()))
			if err != nil || len(re.Events) != 1 {
				t.Fatalf("events=%v err=%v", re.Events, err)
			}
			var to replyTo
			_ = json.Unmarshal(re.Events[0].Reply, &to)
			if e := re.Events[0]; e.ConversationKey != tc.key || e.Text != tc.text || to.ThreadTS != tc.thread || to.Channel != "C9" {
				t.Fatalf("event = %+v reply = %s", e, e.Reply)
			}
		})
	}
}

func TestReceiveSkipsBotsEditsAndChannelChatter(t *testing.T) {
	r := newRig(t)
	for name, ev := range map[string]string{
		"bot message":     `{"type":"message","channel_type":"im","channel":"D1","user":"U42","bot_id":"B9","text":"hi","ts":"1.1"}`,
		"own message":     `{"type":"message","channel_type":"im","channel":"D1","user":"UBOT1","text":"my answer","ts":"1.2"}`,
		"edit":            `{"type":"message","subtype":"message_changed","channel_type":"im","channel":"D1","ts":"1.3"}`,
		"channel message": `{"type":"message","channel_type":"channel","channel":"C9","user":"U42","text":"hi all","ts":"1.4"}`,
		"reaction":        `{"type":"reaction_added","user":"U42","reaction":"+1"}`,
	} {
		re, err := r.kind.Receive(context.Background(), r.ch, signed(callback(ev), testSigning, time.Now()))
		if err != nil || len(re.Events) != 0 {
			t.Fatalf("%s: events=%v err=%v", name, re.Events, err)
		}
	}
}

func TestReceiveMarksAFileWithoutText(t *testing.T) {
	r := newRig(t)
	ev := `{"type":"message","subtype":"file_share","channel_type":"im","channel":"D1","user":"U42","text":"","ts":"1.5","files":[{"id":"F1"}]}`
	re, err := r.kind.Receive(context.Background(), r.ch, signed(callback(ev), testSigning, time.Now()))
	if err != nil || len(re.Events) != 1 || !re.Events[0].NotText {
		t.Fatalf("events=%+v err=%v", re.Events, err)
	}
}

func TestReceiveRefusesMalformedBodies(t *testing.T) {
	r := newRig(t)
	for _, body := range []string{`not json`, `{}`, `{"type":"event_callback"}`} {
		if _, err := r.kind.Receive(context.Background(), r.ch, signed(body, testSigning, time.Now())); !errors.Is(err, errs.ErrInvalid) {
			t.Fatalf("%s: err = %v, want ErrInvalid", body, err)
		}
	}
}
