package chat

import (
	"context"
	"encoding/json"

	"github.com/cloudwego/hertz/pkg/app"
	"github.com/cloudwego/hertz/pkg/protocol/sse"

	chatapp "github.com/pergola-ai/pergola/application/chat"
	"github.com/pergola-ai/pergola/backend/api/conversations"
	"github.com/pergola-ai/pergola/backend/api/httpx"
	"github.com/pergola-ai/pergola/domain/conversation"
	"github.com/pergola-ai/pergola/domain/errs"
)

// Handlers serves the chat routes.
type Handlers struct {
	Svc *chatapp.Service
}

type chatRequest struct {
	BotID              httpx.ID                     `json:"bot_id"`
	UserID             string                       `json:"user_id"`
	AdditionalMessages []conversations.EnterMessage `json:"additional_messages"`
	Stream             bool                         `json:"stream"`
	AutoSaveHistory    *bool                        `json:"auto_save_history"`
	CustomVariables    map[string]string            `json:"custom_variables"`
	MetaData           map[string]string            `json:"meta_data"`
}

// Create answers POST /v3/chat: a stream of chat events when "stream" is
// true, otherwise the chat in progress, to poll with /v3/chat/retrieve.
func (h Handlers) Create(ctx context.Context, c *app.RequestContext) error {
	var req chatRequest
	if err := httpx.BindJSON(c, &req); err != nil {
		return err
	}
	convID, err := httpx.QueryID(c, "conversation_id", false)
	if err != nil {
		return err
	}
	msgs, err := conversations.EnterMessages("additional_messages", req.AdditionalMessages)
	if err != nil {
		return err
	}
	save := req.AutoSaveHistory == nil || *req.AutoSaveHistory
	if req.Stream && !save {
		return errs.Invalid("auto_save_history", "must be true when stream is true")
	}
	in := chatapp.Request{BotID: int64(req.BotID), ConversationID: convID, UserID: req.UserID,
		AdditionalMessages: msgs, AutoSaveHistory: save, CustomVariables: req.CustomVariables, MetaData: req.MetaData}
	return h.run(ctx, c, req.Stream, func(sink chatapp.Sink) (*conversation.Chat, error) {
		return h.Svc.Start(withLogID(ctx, c), httpx.Caller(c), in, sink)
	})
}

// withLogID hands the request's log id to the chat run: a failure names
// it to the end user and logs its detail under it.
func withLogID(ctx context.Context, c *app.RequestContext) context.Context {
	return chatapp.WithLogID(ctx, httpx.LogID(c))
}

// run starts a chat and answers with its stream or with the chat. Errors
// found before the chat starts are JSON answers, which Coze SDKs read even
// on a streaming call.
func (h Handlers) run(ctx context.Context, c *app.RequestContext, stream bool, start func(chatapp.Sink) (*conversation.Chat, error)) error {
	if !stream {
		chat, err := start(nil)
		if err != nil {
			return err
		}
		httpx.OK(c, NewChat(chat))
		return nil
	}
	q := newQueue()
	if _, err := start(q); err != nil {
		return err
	}
	writeStream(ctx, c, q, cozeEvent)
	return nil
}

// writeStream writes events until done, or until the client goes away
// (the run goes on without it).
func writeStream(ctx context.Context, c *app.RequestContext, q *queue, encode func(chatapp.Event) (string, []byte)) {
	w := sse.NewWriter(c)
	defer w.Close()
	for {
		e, ok := q.next(ctx)
		if !ok {
			return
		}
		name, data := encode(e)
		if name != "" {
			if err := w.WriteEvent("", name, data); err != nil {
				return
			}
		}
		if e.Kind == chatapp.EventDone {
			return
		}
	}
}

// cozeEvent encodes an event as Coze's chat stream carries it: the event
// name and one compact JSON line.
func cozeEvent(e chatapp.Event) (string, []byte) {
	var v any
	switch {
	case e.Kind == chatapp.EventDone:
		v = "[DONE]"
	case e.Chat != nil:
		v = NewChat(e.Chat)
	case e.Message != nil:
		v = conversations.NewMessage(e.Message)
	default:
		return "", nil
	}
	b, _ := json.Marshal(v)
	return string(e.Kind), b
}

// Retrieve answers GET /v3/chat/retrieve.
func (h Handlers) Retrieve(ctx context.Context, c *app.RequestContext) error {
	convID, chatID, err := chatRef(c)
	if err != nil {
		return err
	}
	chat, err := h.Svc.Get(ctx, httpx.Caller(c), convID, chatID)
	if err != nil {
		return err
	}
	httpx.OK(c, NewChat(chat))
	return nil
}

// Messages answers GET /v3/chat/message/list with what the bot said.
func (h Handlers) Messages(ctx context.Context, c *app.RequestContext) error {
	convID, chatID, err := chatRef(c)
	if err != nil {
		return err
	}
	msgs, err := h.Svc.Messages(ctx, httpx.Caller(c), convID, chatID)
	if err != nil {
		return err
	}
	httpx.OK(c, conversations.NewMessages(msgs))
	return nil
}

// Cancel answers POST /v3/chat/cancel {conversation_id, chat_id}.
func (h Handlers) Cancel(ctx context.Context, c *app.RequestContext) error {
	var req struct {
		ConversationID httpx.ID `json:"conversation_id"`
		ChatID         httpx.ID `json:"chat_id"`
	}
	if err := httpx.BindJSON(c, &req); err != nil {
		return err
	}
	if req.ConversationID == 0 {
		return errs.Invalid("conversation_id", "is required")
	}
	if req.ChatID == 0 {
		return errs.Invalid("chat_id", "is required")
	}
	chat, err := h.Svc.Cancel(ctx, httpx.Caller(c), int64(req.ConversationID), int64(req.ChatID))
	if err != nil {
		return err
	}
	httpx.OK(c, NewChat(chat))
	return nil
}

// SubmitToolOutputs answers POST /v3/chat/submit_tool_outputs: the same
// chat continues, streamed or not.
func (h Handlers) SubmitToolOutputs(ctx context.Context, c *app.RequestContext) error {
	convID, chatID, err := chatRef(c)
	if err != nil {
		return err
	}
	var req struct {
		ToolOutputs []struct {
			ToolCallID string `json:"tool_call_id"`
			Output     string `json:"output"`
		} `json:"tool_outputs"`
		Stream bool `json:"stream"`
	}
	if err := httpx.BindJSON(c, &req); err != nil {
		return err
	}
	outputs := make([]conversation.ToolOutput, len(req.ToolOutputs))
	for i, o := range req.ToolOutputs {
		outputs[i] = conversation.ToolOutput{ToolCallID: o.ToolCallID, Output: o.Output}
	}
	return h.run(ctx, c, req.Stream, func(sink chatapp.Sink) (*conversation.Chat, error) {
		return h.Svc.Submit(withLogID(ctx, c), httpx.Caller(c), convID, chatID, outputs, sink)
	})
}

func chatRef(c *app.RequestContext) (int64, int64, error) {
	convID, err := httpx.QueryID(c, "conversation_id", true)
	if err != nil {
		return 0, 0, err
	}
	chatID, err := httpx.QueryID(c, "chat_id", true)
	return convID, chatID, err
}
