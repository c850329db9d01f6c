package chat

import (
	"context"
	"encoding/json"
	"errors"
	"strconv"
	"strings"

	"github.com/cloudwego/hertz/pkg/app"
	"github.com/cloudwego/hertz/pkg/protocol/sse"

	chatapp "github.com/pergola-ai/pergola/application/chat"
	"github.com/pergola-ai/pergola/backend/api/httpx"
	"github.com/pergola-ai/pergola/domain/conversation"
	"github.com/pergola-ai/pergola/domain/errs"
)

type oaMessage struct {
	Role       string          `json:"role"`
	Content    json.RawMessage `json:"content"`
	ToolCalls  []oaToolCall    `json:"tool_calls,omitempty"`
	ToolCallID string          `json:"tool_call_id,omitempty"`
}

type oaToolCall struct {
	Index    *int        `json:"index,omitempty"`
	ID       string      `json:"id"`
	Type     string      `json:"type"`
	Function functionDTO `json:"function"`
}

type oaRequest struct {
	Model         string      `json:"model"`
	Messages      []oaMessage `json:"messages"`
	Stream        bool        `json:"stream"`
	User          string      `json:"user"`
	StreamOptions *struct {
		IncludeUsage bool `json:"include_usage"`
	} `json:"stream_options"`
	Tools          []oaTool        `json:"tools"`
	ToolChoice     json.RawMessage `json:"tool_choice"`
	ResponseFormat *oaFormat       `json:"response_format"`
	N              *int            `json:"n"`
}

// completionRequest is the application's request for an OpenAI one.
func completionRequest(botID int64, req oaRequest) (chatapp.CompletionRequest, error) {
	if req.N != nil && *req.N != 1 {
		return chatapp.CompletionRequest{}, errs.Invalid("n", "only 1 is supported: a bot gives one answer a request; send 1 or leave n out (got %d)", *req.N)
	}
	msgs, err := completionMessages(req.Messages)
	if err != nil {
		return chatapp.CompletionRequest{}, err
	}
	tools, err := requestTools(req.Tools, req.ToolChoice)
	if err != nil {
		return chatapp.CompletionRequest{}, err
	}
	tools.Format, err = responseFormat(req.ResponseFormat, "response_format")
	tools.FormatField = "response_format"
	if err == nil {
		err = needsJSONWord(tools.Format, "response_format", messageContents(req.Messages)...)
	}
	return chatapp.CompletionRequest{BotID: botID, User: req.User, Messages: msgs, Tools: tools}, err
}

// Completions answers POST /v1/chat/completions with model = a published
// bot's id, in OpenAI's wire format, so any OpenAI client can talk to a
// bot. Errors use OpenAI's {"error":{...}} shape (httpx.Fail knows the
// route).
func (h Handlers) Completions(ctx context.Context, c *app.RequestContext) {
	if err := h.completions(ctx, c); err != nil {
		httpx.Fail(ctx, c, err)
	}
}

func (h Handlers) completions(ctx context.Context, c *app.RequestContext) error {
	var req oaRequest
	if err := httpx.BindJSON(c, &req); err != nil {
		return err
	}
	botID, err := modelBotID(req.Model)
	if err != nil {
		return err
	}
	in, err := completionRequest(botID, req)
	if err != nil {
		return err
	}
	q := newQueue()
	if err := h.Svc.Complete(withLogID(ctx, c), httpx.Caller(c), in, q); err != nil {
		return modelError(req.Model, err)
	}
	r := &oaReply{model: req.Model, usage: req.StreamOptions != nil && req.StreamOptions.IncludeUsage}
	if req.Stream {
		r.stream(ctx, c, q)
		return nil
	}
	if err := r.drain(ctx, q); err != nil {
		return err
	}
	if r.end != nil && r.end.Status == conversation.ChatFailed {
		c.JSON(502, map[string]any{"error": failedError(r.end)})
		return nil
	}
	c.JSON(200, r.completion())
	return nil
}

// drain collects events until the run is done.
func (r *oaReply) drain(ctx context.Context, q *queue) error {
	for {
		e, ok := q.next(ctx)
		if !ok {
			return ctx.Err()
		}
		r.collect(e)
		if e.Kind == chatapp.EventDone {
			return nil
		}
	}
}

// failedError is the OpenAI error of a run that failed: its message says
// why and names the log id.
func failedError(chat *conversation.Chat) httpx.OpenAIError {
	msg := "the run failed"
	if chat.LastError != nil {
		msg = chat.LastError.Msg
	}
	return httpx.OpenAIError{Message: msg, Type: "server_error"}
}

func completionMessages(in []oaMessage) ([]chatapp.CompletionMessage, error) {
	out := make([]chatapp.CompletionMessage, len(in))
	for i, m := range in {
		text, err := contentOf(m.Content)
		if err != nil {
			return nil, reField("messages["+strconv.Itoa(i)+"].content", err)
		}
		cm := chatapp.CompletionMessage{Role: m.Role, Content: text, ToolCallID: m.ToolCallID}
		if m.Role == "developer" { // OpenAI's newer name for system instructions
			cm.Role = "system"
		}
		for _, tc := range m.ToolCalls {
			cm.ToolCalls = append(cm.ToolCalls, conversation.ToolCall{ID: tc.ID, Name: tc.Function.Name, Arguments: tc.Function.Arguments})
		}
		out[i] = cm
	}
	return out, nil
}

// reField names field for what a reader of one value found wrong.
func reField(field string, err error) error {
	var fe *errs.FieldError
	if errors.As(err, &fe) {
		return errs.Invalid(field, "%s", fe.Reason)
	}
	return err
}

// contentOf reads a string content or an array of text parts.
func contentOf(raw json.RawMessage) (string, error) {
	if len(raw) == 0 || string(raw) == "null" {
		return "", nil
	}
	var s string
	if json.Unmarshal(raw, &s) == nil {
		return s, nil
	}
	var parts []struct {
		Type string `json:"type"`
		Text string `json:"text"`
	}
	if err := json.Unmarshal(raw, &parts); err != nil {
		return "", errs.Invalid("content", "must be a string or an array of {type, text} parts")
	}
	var b strings.Builder
	for _, p := range parts {
		if p.Type == "text" { // image and other parts are not read
			b.WriteString(p.Text)
		}
	}
	return b.String(), nil
}

// oaReply turns chat events into OpenAI's answer or chunks.
type oaReply struct {
	model   string
	usage   bool
	chatID  int64
	created int64
	answer  string
	end     *conversation.Chat
}

func (r *oaReply) collect(e chatapp.Event) {
	if e.Chat != nil {
		r.chatID, r.created = e.Chat.ID, httpx.Unix(e.Chat.CreatedAt)
		r.end = e.Chat
	}
	if e.Kind == chatapp.EventMessageDone && e.Message.Type == conversation.TypeAnswer {
		r.answer = e.Message.Content // the last answer is the reply
	}
}

func (r *oaReply) id() string { return "chatcmpl-" + strconv.FormatInt(r.chatID, 10) }

func (r *oaReply) finish() (string, []oaToolCall) {
	if r.end == nil {
		return "stop", nil
	}
	if r.end.Status == conversation.ChatRequiresAction && r.end.RequiredAction != nil {
		var calls []oaToolCall
		for i, tc := range r.end.RequiredAction.ToolCalls {
			idx := i
			calls = append(calls, oaToolCall{Index: &idx, ID: tc.ID, Type: "function", Function: functionDTO{Name: tc.Name, Arguments: tc.Arguments}})
		}
		return "tool_calls", calls
	}
	return "stop", nil
}

func (r *oaReply) usageJSON() map[string]int {
	if r.end == nil {
		return map[string]int{"prompt_tokens": 0, "completion_tokens": 0, "total_tokens": 0}
	}
	u := r.end.Usage
	return map[string]int{"prompt_tokens": u.InputTokens, "completion_tokens": u.OutputTokens, "total_tokens": u.Total()}
}

func (r *oaReply) completion() map[string]any {
	reason, calls := r.finish()
	msg := map[string]any{"role": "assistant", "content": r.answer}
	if len(calls) > 0 {
		msg["tool_calls"] = calls
	}
	return map[string]any{"id": r.id(), "object": "chat.completion", "created": r.created, "model": r.model,
		"choices": []any{map[string]any{"index": 0, "message": msg, "finish_reason": reason}}, "usage": r.usageJSON()}
}

func (r *oaReply) chunk(delta map[string]any, reason any) map[string]any {
	return map[string]any{"id": r.id(), "object": "chat.completion.chunk", "created": r.created, "model": r.model,
		"choices": []any{map[string]any{"index": 0, "delta": delta, "finish_reason": reason}}}
}

func (r *oaReply) stream(ctx context.Context, c *app.RequestContext, q *queue) {
	w := sse.NewWriter(c)
	defer w.Close()
	send := func(v any) bool {
		b, _ := json.Marshal(v)
		return w.WriteEvent("", "", b) == nil
	}
	for {
		e, ok := q.next(ctx)
		if !ok {
			return
		}
		r.collect(e)
		switch {
		case e.Kind == chatapp.EventChatCreated:
			ok = send(r.chunk(map[string]any{"role": "assistant", "content": ""}, nil))
		case e.Kind == chatapp.EventMessageDelta && e.Message.Type == conversation.TypeAnswer:
			ok = send(r.chunk(map[string]any{"content": e.Message.Content}, nil))
		case e.Kind == chatapp.EventChatFailed:
			ok = send(map[string]any{"error": failedError(e.Chat)})
		case e.Chat != nil && e.Chat.Status.Terminal() || e.Kind == chatapp.EventRequiresAction:
			reason, calls := r.finish()
			delta := map[string]any{}
			if len(calls) > 0 {
				delta["tool_calls"] = calls
			}
			ok = send(r.chunk(delta, reason))
			if ok && r.usage {
				ok = send(map[string]any{"id": r.id(), "object": "chat.completion.chunk", "created": r.created, "model": r.model,
					"choices": []any{}, "usage": r.usageJSON()})
			}
		case e.Kind == chatapp.EventDone:
			_ = w.WriteEvent("", "", []byte("[DONE]"))
			return
		}
		if !ok {
			return
		}
	}
}
