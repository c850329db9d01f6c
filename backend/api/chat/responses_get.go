package chat

import (
	"context"

	"github.com/cloudwego/hertz/pkg/app"

	chatapp "github.com/pergola-ai/pergola/application/chat"
	"github.com/pergola-ai/pergola/backend/api/httpx"
	"github.com/pergola-ai/pergola/domain/conversation"
)

// Response answers GET /v1/responses/{id}: the response as its chat now
// stands (the model is the bot's id; the request's instructions and
// tools are not kept).
func (h Handlers) Response(ctx context.Context, c *app.RequestContext) error {
	id := c.Param("id")
	convID, chatID, err := parseResponseID(id)
	if err != nil {
		return httpx.WithOpenAICode(err, "", "")
	}
	p := httpx.Caller(c)
	chat, err := h.Svc.Get(ctx, p, convID, chatID)
	if err != nil {
		return err
	}
	msgs, err := h.Svc.Messages(ctx, p, convID, chatID)
	if err != nil {
		return err
	}
	r := &rsReply{model: httpx.OptionalID(chat.BotID), req: &rsRequest{}, announced: true}
	r.collect(chatapp.Event{Kind: chatapp.EventChatInProgress, Chat: chat})
	for i := range msgs {
		r.collect(chatapp.Event{Kind: chatapp.EventMessageDone, Message: &msgs[i]})
	}
	r.suffix = suffixOf(id)
	c.JSON(200, r.object(storedStatus(r, chat)))
	return nil
}

// storedStatus is the Responses status of a chat, adding its function
// calls when it waits for them.
func storedStatus(r *rsReply, chat *conversation.Chat) string {
	switch chat.Status {
	case conversation.ChatRequiresAction:
		r.functionCalls()
		return "completed"
	case conversation.ChatFailed:
		return "failed"
	case conversation.ChatCanceled:
		return "incomplete"
	case conversation.ChatCompleted:
		return "completed"
	}
	return "in_progress"
}

// suffixOf returns what follows the conversation and chat in a response id.
func suffixOf(id string) string {
	n := 0
	for i := range len(id) {
		if id[i] == '_' {
			n++
			if n == 3 {
				return id[i+1:]
			}
		}
	}
	return ""
}
