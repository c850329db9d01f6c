package line

import (
	"context"
	"errors"
	"testing"

	"github.com/pergola-ai/pergola/domain/errs"
	"github.com/pergola-ai/pergola/infra/channels/line/linefake"
)

func TestReceiveRefusesMissingForgedAndStaleSignatures(t *testing.T) {
	r := newRig(t)
	body := r.fake.Body(r.fake.Event(linefake.Message{EventID: "E1", UserID: "U1", Text: "hi"}))
	other := r.fake.Body(r.fake.Event(linefake.Message{EventID: "E0", UserID: "U1", Text: "an earlier request"}))
	cases := map[string]string{
		"missing":                    "",
		"not base64":                 "%%%not-base64",
		"forged with another secret": linefake.Signature("another-channel-secret-0000000000", body),
		"stale: the signature of an earlier request": linefake.Signature(testSecret, other),
	}
	for name, sig := range cases {
		_, err := r.kind.Receive(context.Background(), r.ch, signed(body, sig))
		if !errors.Is(err, errs.ErrUnauthenticated) {
			t.Errorf("%s signature: err = %v, want ErrUnauthenticated", name, err)
		}
	}
	if _, err := r.kind.Receive(context.Background(), r.ch, signed(body, linefake.Signature(testSecret, body))); err != nil {
		t.Fatalf("good signature refused: %v", err)
	}
}

func TestReceiveAnswersTheConsoleVerifyWithNoEvents(t *testing.T) {
	r := newRig(t)
	if re := r.receive(t); len(re.Events) != 0 || re.Status != 0 {
		t.Fatalf("verify request gave %+v; want 200 and no events", re)
	}
	_, err := r.kind.Receive(context.Background(), r.ch, signed([]byte(`{"destination":"U1"}`), linefake.Signature(testSecret, []byte(`{"destination":"U1"}`))))
	if !errors.Is(err, errs.ErrInvalid) {
		t.Fatalf("a body without events: err = %v, want ErrInvalid", err)
	}
}

func TestReceiveParsesADirectMessage(t *testing.T) {
	r := newRig(t)
	ev := r.fake.Event(linefake.Message{EventID: "01HEV1", UserID: "Uann", Text: "  hello line "})
	re := r.receive(t, ev)
	if len(re.Events) != 1 {
		t.Fatalf("events = %+v; want one", re.Events)
	}
	e := re.Events[0]
	if e.ID != "01HEV1" || e.UserID != "Uann" || e.ConversationKey != "Uann" || e.Text != "hello line" || e.NotText {
		t.Fatalf("event = %+v", e)
	}
	if to := replyOf(t, e.Reply); to.ReplyToken != ev["replyToken"] || to.To != "Uann" || to.EventID != "01HEV1" {
		t.Fatalf("reply = %+v; want the reply token and the user to push to", to)
	}
}

func TestReceiveAnswersGroupsOnlyWhenMentioned(t *testing.T) {
	r := newRig(t)
	re := r.receive(t,
		r.fake.Event(linefake.Message{EventID: "G1", UserID: "Uann", GroupID: "Cgroup", Text: "chatter"}),
		r.fake.Event(linefake.Message{EventID: "G2", UserID: "Uann", GroupID: "Cgroup", Text: "what time is it?", Mention: true}))
	if len(re.Events) != 1 || re.Events[0].ID != "G2" {
		t.Fatalf("events = %+v; want only the mention", re.Events)
	}
	e := re.Events[0]
	if e.Text != "what time is it?" || e.ConversationKey != "Cgroup" || replyOf(t, e.Reply).To != "Cgroup" {
		t.Fatalf("event = %+v; want the mention removed and the group as the conversation", e)
	}
}

func TestReceiveMarksNonTextAndSkipsOtherEvents(t *testing.T) {
	r := newRig(t)
	sticker := r.fake.Event(linefake.Message{EventID: "S1", UserID: "Uann", Type: "sticker"})
	follow := map[string]any{"type": "follow", "webhookEventId": "F1", "replyToken": "rt", "source": map[string]any{"type": "user", "userId": "Uann"}}
	standby := r.fake.Event(linefake.Message{EventID: "B1", UserID: "Uann", Text: "for another module"})
	standby["mode"] = "standby"
	re := r.receive(t, sticker, follow, standby)
	if len(re.Events) != 1 || re.Events[0].ID != "S1" || !re.Events[0].NotText || re.Events[0].Text != "" {
		t.Fatalf("events = %+v; want only the sticker, marked NotText", re.Events)
	}
	broken := r.fake.Event(linefake.Message{EventID: "", UserID: "Uann", Text: "no id"})
	body := r.fake.Body(broken)
	if _, err := r.kind.Receive(context.Background(), r.ch, signed(body, linefake.Signature(testSecret, body))); !errors.Is(err, errs.ErrInvalid) {
		t.Fatalf("a message event without webhookEventId: err = %v, want ErrInvalid", err)
	}
}
