package discord

import (
	"context"
	"crypto/ed25519"
	"crypto/rand"
	"encoding/json"
	"errors"
	"strconv"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	appchannel "github.com/pergola-ai/pergola/application/channel"
	"github.com/pergola-ai/pergola/domain/errs"
	"github.com/pergola-ai/pergola/infra/channels/discord/discordfake"
)

func TestReceiveSignatures(t *testing.T) {
	r := newRig(t)
	body, _ := r.fake.Interaction(discordfake.Command{ID: "1", ChannelID: "C", UserID: "U", Question: "hi"})
	_, other, _ := ed25519.GenerateKey(rand.Reader)
	now := time.Now().Unix()
	good := r.fake.Headers(body, time.Now())
	cases := []struct {
		name    string
		headers map[string]string
		body    []byte
		ok      bool
	}{
		{"signed by the application", good, body, true},
		{"signed 4 minutes ago", r.fake.Headers(body, time.Now().Add(-4*time.Minute)), body, true},
		{"signed with another key", map[string]string{TimestampHeader: strconv.FormatInt(now, 10), SignatureHeader: discordfake.Sign(other, now, body)}, body, false},
		{"body changed", good, append([]byte(" "), body...), false},
		{"timestamp changed", map[string]string{TimestampHeader: strconv.FormatInt(now+1, 10), SignatureHeader: good[SignatureHeader]}, body, false},
		{"stale: 6 minutes old", r.fake.Headers(body, time.Now().Add(-6*time.Minute)), body, false},
		{"from the future: 6 minutes ahead", r.fake.Headers(body, time.Now().Add(6*time.Minute)), body, false},
		{"no headers", nil, body, false},
		{"signature not hex", map[string]string{TimestampHeader: good[TimestampHeader], SignatureHeader: "zz"}, body, false},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			_, err := r.kind.Receive(context.Background(), r.ch, inbound(c.body, c.headers))
			if c.ok != (err == nil) || (err != nil && !errors.Is(err, errs.ErrUnauthenticated)) {
				t.Fatalf("Receive = %v; want ok=%v, else ErrUnauthenticated", err, c.ok)
			}
		})
	}
}

func TestReceivePing(t *testing.T) {
	r := newRig(t)
	ping := r.fake.Ping()
	got, err := r.kind.Receive(context.Background(), r.ch, inbound(ping, r.fake.Headers(ping, time.Now())))
	if err != nil || string(got.Body) != `{"type":1}` || len(got.Events) != 0 {
		t.Fatalf("PING = %+v, %v; want the body {\"type\":1} and no event", got, err)
	}
}

func TestReceiveCommand(t *testing.T) {
	r := newRig(t)
	body, token := r.fake.Interaction(discordfake.Command{ID: "1300", ChannelID: "1400", UserID: "1500", Question: "  what is up?  "})
	got, err := r.kind.Receive(context.Background(), r.ch, inbound(body, r.fake.Headers(body, time.Now())))
	if err != nil || string(got.Body) != `{"type":5}` {
		t.Fatalf("command = %+v, %v; want the deferral {\"type\":5}", got, err)
	}
	reply, _ := json.Marshal(replyTo{ApplicationID: testAppID, Token: token})
	want := []appchannel.Event{{ID: "1300", UserID: "1500", ConversationKey: "1400", Text: "what is up?", Reply: reply}}
	if d := cmp.Diff(want, got.Events); d != "" {
		t.Fatalf("events (-want +got):\n%s", d)
	}
}

// TestReceiveShapes covers the parts of an interaction the command's
// event is read from, signed each time.
func TestReceiveShapes(t *testing.T) {
	r := newRig(t)
	cases := []struct {
		name, body string
		events     int
		user, text string
		invalid    bool
	}{
		{"direct message: user, not member", `{"type":2,"id":"1","token":"t","channel_id":"D","user":{"id":"U9"},"data":{"name":"ask","options":[{"name":"question","type":3,"value":"dm"}]}}`, 1, "U9", "dm", false},
		{"first string option", `{"type":2,"id":"1","token":"t","channel_id":"C","member":{"user":{"id":"U1"}},"data":{"name":"ask","options":[{"name":"n","type":4,"value":3},{"name":"text","type":3,"value":"first"},{"name":"x","type":3,"value":"second"}]}}`, 1, "U1", "first", false},
		{"subcommand's question", `{"type":2,"id":"1","token":"t","channel_id":"C","member":{"user":{"id":"U1"}},"data":{"name":"bot","options":[{"name":"ask","type":1,"options":[{"name":"question","type":3,"value":"nested"}]}]}}`, 1, "U1", "nested", false},
		{"no option: not text", `{"type":2,"id":"1","token":"t","channel_id":"C","member":{"user":{"id":"U1"}},"data":{"name":"ask"}}`, 1, "U1", "", false},
		{"component click: no event", `{"type":3,"id":"1","token":"t","channel_id":"C","member":{"user":{"id":"U1"}}}`, 0, "", "", false},
		{"autocomplete: no event", `{"type":4,"id":"1","token":"t","channel_id":"C","member":{"user":{"id":"U1"}}}`, 0, "", "", false},
		{"command without token", `{"type":2,"id":"1","channel_id":"C","member":{"user":{"id":"U1"}}}`, 0, "", "", true},
		{"not JSON", `nope`, 0, "", "", true},
		{"no type", `{}`, 0, "", "", true},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			body := []byte(c.body)
			got, err := r.kind.Receive(context.Background(), r.ch, inbound(body, r.fake.Headers(body, time.Now())))
			if c.invalid {
				if !errors.Is(err, errs.ErrInvalid) {
					t.Fatalf("Receive = %v; want ErrInvalid", err)
				}
				return
			}
			if err != nil || len(got.Events) != c.events {
				t.Fatalf("Receive = %+v, %v; want %d events", got, err, c.events)
			}
			if c.events == 1 && (got.Events[0].UserID != c.user || got.Events[0].Text != c.text || got.Events[0].NotText != (c.text == "")) {
				t.Fatalf("event = %+v; want user %s, text %q", got.Events[0], c.user, c.text)
			}
		})
	}
}
