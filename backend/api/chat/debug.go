package chat

import (
	"context"
	"strconv"

	"github.com/cloudwego/hertz/pkg/app"

	chatapp "github.com/pergola-ai/pergola/application/chat"
	"github.com/pergola-ai/pergola/backend/api/httpx"
	"github.com/pergola-ai/pergola/domain/conversation"
	"github.com/pergola-ai/pergola/domain/errs"
)

// Debug answers POST /api/bots/:id/chat: the builder's debug chat on the
// bot's draft, streamed as Coze chat events unless "stream" is false.
// Body: {message, conversation_id?, user_id?, stream?, custom_variables?}.
func (h Handlers) Debug(ctx context.Context, c *app.RequestContext) error {
	botID, err := httpx.PathID(c, "id")
	if err != nil {
		return err
	}
	var req struct {
		Message         string            `json:"message"`
		ConversationID  httpx.ID          `json:"conversation_id"`
		UserID          string            `json:"user_id"`
		Stream          *bool             `json:"stream"`
		CustomVariables map[string]string `json:"custom_variables"`
	}
	if err := httpx.BindJSON(c, &req); err != nil {
		return err
	}
	if req.Message == "" {
		return errs.Invalid("message", "is required")
	}
	p := httpx.Caller(c)
	if req.UserID == "" {
		req.UserID = "builder-" + strconv.FormatInt(p.UserID, 10)
	}
	in := chatapp.Request{BotID: botID, ConversationID: int64(req.ConversationID), UserID: req.UserID, Draft: true,
		AdditionalMessages: []chatapp.InputMessage{{Role: conversation.RoleUser, Content: req.Message, ContentType: conversation.ContentText}},
		AutoSaveHistory:    true, CustomVariables: req.CustomVariables}
	stream := req.Stream == nil || *req.Stream
	return h.run(ctx, c, stream, func(sink chatapp.Sink) (*conversation.Chat, error) {
		return h.Svc.Start(withLogID(ctx, c), p, in, sink)
	})
}
