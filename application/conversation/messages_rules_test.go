package conversation_test

import (
	"context"
	"testing"

	convapp "github.com/pergola-ai/pergola/application/conversation"
	"github.com/pergola-ai/pergola/domain/conversation"
	"github.com/pergola-ai/pergola/domain/errs"
)

func ptr[T any](v T) *T { return &v }

func TestMessageLifecycle(t *testing.T) {
	e := newEnv(t)
	ctx := context.Background()
	me := caller(ada)
	c := e.conv(t, me, convapp.CreateInput{BotID: botTeam})

	q, err := e.svc.CreateMessage(ctx, me, c.ID, convapp.MessageInput{Role: "user", Content: "hi", MetaData: map[string]string{"a": "1"}})
	must(t, err)
	if q.Type != "question" || q.ContentType != "text" || q.SectionID != c.SectionID || q.BotID != botTeam || q.ID == 0 {
		t.Fatalf("created %+v", q)
	}
	a, err := e.svc.CreateMessage(ctx, me, c.ID, text("assistant", "hello"))
	must(t, err)

	t.Run("create validates", func(t *testing.T) {
		_, err := e.svc.CreateMessage(ctx, me, c.ID, convapp.MessageInput{Role: "user", Content: "x", ContentType: "object_string"})
		wantField(t, err, "content")
		_, err = e.svc.CreateMessage(ctx, me, c.ID, convapp.MessageInput{Role: "bot", Content: "x"})
		wantField(t, err, "role")
	})

	t.Run("list validates its query", func(t *testing.T) {
		bad := map[string]conversation.MessageQuery{
			"order":     {Order: "newest", Limit: 5},
			"limit":     {Limit: 0},
			"before_id": {Limit: 5, BeforeID: -1},
		}
		for field, q := range bad {
			_, _, err := e.svc.ListMessages(ctx, me, c.ID, q)
			wantField(t, err, field)
		}
		_, _, err := e.svc.ListMessages(ctx, me, c.ID, conversation.MessageQuery{Limit: 51})
		wantField(t, err, "limit")
		list, _, err := e.svc.ListMessages(ctx, me, c.ID, conversation.MessageQuery{Limit: 50})
		must(t, err)
		if len(list) != 2 || list[0].ID != a.ID {
			t.Errorf("default order is not newest first: %v", list)
		}
	})

	t.Run("update", func(t *testing.T) {
		got, err := e.svc.UpdateMessage(ctx, me, c.ID, q.ID, convapp.MessagePatch{
			Content: ptr(`[{"type":"text","text":"hi"}]`), ContentType: ptr("object_string"),
		})
		must(t, err)
		if got.ContentType != "object_string" || got.MetaData["a"] != "1" {
			t.Errorf("updated %+v", got)
		}
		got, err = e.svc.UpdateMessage(ctx, me, c.ID, q.ID, convapp.MessagePatch{MetaData: &map[string]string{"b": "2"}})
		must(t, err)
		if len(got.MetaData) != 1 || got.MetaData["b"] != "2" || got.ContentType != "object_string" {
			t.Errorf("meta data not replaced: %+v", got)
		}
		_, err = e.svc.UpdateMessage(ctx, me, c.ID, q.ID, convapp.MessagePatch{Content: ptr("plain text")})
		wantField(t, err, "content") // still object_string
		_, err = e.svc.UpdateMessage(ctx, me, c.ID, q.ID, convapp.MessagePatch{ContentType: ptr("video")})
		wantField(t, err, "content_type")
		_, err = e.svc.UpdateMessage(ctx, me, c.ID, 12345, convapp.MessagePatch{Content: ptr("x")})
		wantErr(t, err, errs.ErrNotFound, "message 12345 not found")
	})

	t.Run("feedback only on answers", func(t *testing.T) {
		must(t, e.svc.SetFeedback(ctx, me, c.ID, a.ID, convapp.FeedbackInput{Type: "unlike", ReasonTypes: []string{"wrong"}, Comment: "no"}))
		got, _ := e.svc.GetMessage(ctx, me, c.ID, a.ID)
		if got.Feedback == nil || got.Feedback.Type != "unlike" || got.Feedback.Comment != "no" || got.Feedback.CreatedAt.IsZero() {
			t.Fatalf("feedback = %+v", got.Feedback)
		}
		wantField(t, e.svc.SetFeedback(ctx, me, c.ID, q.ID, convapp.FeedbackInput{Type: "like"}), "message_id")
		wantField(t, e.svc.SetFeedback(ctx, me, c.ID, a.ID, convapp.FeedbackInput{Type: "love"}), "feedback_type")
		wantField(t, e.svc.SetFeedback(ctx, me, c.ID, a.ID, convapp.FeedbackInput{Type: "like", ReasonTypes: []string{""}}), "reason_types")
		must(t, e.svc.DeleteFeedback(ctx, me, c.ID, a.ID))
		must(t, e.svc.DeleteFeedback(ctx, me, c.ID, a.ID))
		if got, _ := e.svc.GetMessage(ctx, me, c.ID, a.ID); got.Feedback != nil {
			t.Errorf("feedback left: %+v", got.Feedback)
		}
	})

	t.Run("hidden messages are not part of the conversation", func(t *testing.T) {
		h := convapp.NewMessage(c, text("assistant", "secret"))
		h.Hidden = true
		must(t, e.db.Messages().CreateMessages(ctx, h))
		_, err := e.svc.GetMessage(ctx, me, c.ID, h.ID)
		wantErr(t, err, errs.ErrNotFound, "not found")
		_, err = e.svc.UpdateMessage(ctx, me, c.ID, h.ID, convapp.MessagePatch{Content: ptr("x")})
		wantErr(t, err, errs.ErrNotFound, "not found")
		_, err = e.svc.DeleteMessage(ctx, me, c.ID, h.ID)
		wantErr(t, err, errs.ErrNotFound, "not found")
		wantErr(t, e.svc.SetFeedback(ctx, me, c.ID, h.ID, convapp.FeedbackInput{Type: "like"}), errs.ErrNotFound, "not found")
	})

	t.Run("delete returns the message", func(t *testing.T) {
		got, err := e.svc.DeleteMessage(ctx, me, c.ID, q.ID)
		must(t, err)
		if got.ID != q.ID || got.Role != "user" {
			t.Errorf("deleted %+v", got)
		}
		_, err = e.svc.GetMessage(ctx, me, c.ID, q.ID)
		wantErr(t, err, errs.ErrNotFound, "not found")
	})
}
