package line

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/pergola-ai/pergola/domain/errs"
	"github.com/pergola-ai/pergola/infra/channels/line/linefake"
)

const testGroup = "C4af4980629aa0e2b1c9a3c5dd2e9f8a1" // a group the bot is in

func TestPushTo(t *testing.T) {
	k := New(nil)
	for _, id := range []string{"U4af4980629aa0e2b1c9a3c5dd2e9f8a1", testGroup, "R4af4980629aa0e2b1c9a3c5dd2e9f8a1"} {
		reply, key, err := k.PushTo(id)
		to := replyOf(t, reply)
		if err != nil || key != id || to.To != id || to.ReplyToken != "" || !strings.HasPrefix(to.EventID, "push-") {
			t.Errorf("PushTo(%s) = %s, %q, %v; want a push to it, keyed by it", id, reply, key, err)
		}
	}
	a, _, _ := k.PushTo(testGroup)
	b, _, _ := k.PushTo(testGroup)
	if replyOf(t, a).EventID == replyOf(t, b).EventID {
		t.Errorf("two PushTo gave the same event id %q; each scheduled message needs its own retry keys", replyOf(t, a).EventID)
	}
	for _, bad := range []string{"", "Uann", "general", "X4af4980629aa0e2b1c9a3c5dd2e9f8a1", "U4AF4980629AA0E2B1C9A3C5DD2E9F8A1", "U4af4980629aa0e2b1c9a3c5dd2e9f8a"} {
		if _, _, err := k.PushTo(bad); !errors.Is(err, errs.ErrInvalid) || !strings.Contains(err.Error(), "chat_id") ||
			!strings.Contains(err.Error(), "32 hexadecimal digits") {
			t.Errorf("PushTo(%q) = %v, want an error on chat_id saying what a LINE id looks like", bad, err)
		}
	}
}

// TestDeliverPushedUsesThePushAPI: a PushTo address is pushed to the
// group, in the conversation of the group's messages; each scheduled
// message arrives, and a retry of one is not sent twice.
func TestDeliverPushedUsesThePushAPI(t *testing.T) {
	r := newRig(t)
	reply, key, err := r.kind.PushTo(testGroup)
	if err != nil {
		t.Fatal(err)
	}
	re := r.receive(t, r.fake.Event(linefake.Message{EventID: "G9", UserID: "Uann", GroupID: testGroup, Text: "hi", Mention: true}))
	if len(re.Events) != 1 || re.Events[0].ConversationKey != key {
		t.Fatalf("a message of the group: %+v; want conversation key %q", re.Events, key)
	}
	if err := r.kind.Deliver(context.Background(), r.ch, reply, "**Good morning**"); err != nil {
		t.Fatal(err)
	}
	// The runtime retrying the same delivery: LINE already took the push.
	if err := r.kind.Deliver(context.Background(), r.ch, reply, "**Good morning**"); err != nil {
		t.Fatal(err)
	}
	next, _, _ := r.kind.PushTo(testGroup)
	if err := r.kind.Deliver(context.Background(), r.ch, next, "Good evening"); err != nil {
		t.Fatal(err)
	}
	sent := r.fake.Sent()
	if len(sent) != 2 || sent[0].Via != "push" || sent[0].To != testGroup || sent[0].Texts[0] != "Good morning" || sent[1].Texts[0] != "Good evening" {
		t.Fatalf("sent %+v; want the two scheduled messages pushed to the group once each", sent)
	}
	for _, c := range r.fake.Calls() {
		if strings.Contains(c, "/reply") {
			t.Fatalf("calls %v; want no reply call without a reply token", r.fake.Calls())
		}
	}
}
