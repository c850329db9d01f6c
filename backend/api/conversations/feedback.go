package conversations

import (
	"context"

	"github.com/cloudwego/hertz/pkg/app"

	convapp "github.com/pergola-ai/pergola/application/conversation"
	"github.com/pergola-ai/pergola/backend/api/httpx"
)

// feedbackIDs reads the conversation_id and message_id path parameters.
func feedbackIDs(c *app.RequestContext) (conversationID, messageID int64, err error) {
	if conversationID, err = httpx.PathID(c, "conversation_id"); err != nil {
		return 0, 0, err
	}
	messageID, err = httpx.PathID(c, "message_id")
	return conversationID, messageID, err
}

type feedbackBody struct {
	FeedbackType string   `json:"feedback_type"`
	ReasonTypes  []string `json:"reason_types"`
	Comment      string   `json:"comment"`
}

// CreateFeedback answers POST
// /v1/conversations/:conversation_id/messages/:message_id/feedback.
func (h Handlers) CreateFeedback(ctx context.Context, c *app.RequestContext) error {
	convID, msgID, err := feedbackIDs(c)
	if err != nil {
		return err
	}
	var body feedbackBody
	if err := httpx.BindJSON(c, &body); err != nil {
		return err
	}
	err = h.Svc.SetFeedback(ctx, httpx.Caller(c), convID, msgID, convapp.FeedbackInput{
		Type: body.FeedbackType, ReasonTypes: body.ReasonTypes, Comment: body.Comment,
	})
	if err != nil {
		return err
	}
	httpx.OK(c, nil)
	return nil
}

// DeleteFeedback answers DELETE
// /v1/conversations/:conversation_id/messages/:message_id/feedback.
func (h Handlers) DeleteFeedback(ctx context.Context, c *app.RequestContext) error {
	convID, msgID, err := feedbackIDs(c)
	if err != nil {
		return err
	}
	if err := h.Svc.DeleteFeedback(ctx, httpx.Caller(c), convID, msgID); err != nil {
		return err
	}
	httpx.OK(c, nil)
	return nil
}
