package chat

import (
	"context"
	"encoding/json"
	"strconv"

	"github.com/cloudwego/hertz/pkg/app"
	"github.com/cloudwego/hertz/pkg/protocol/sse"

	chatapp "github.com/pergola-ai/pergola/application/chat"
	"github.com/pergola-ai/pergola/backend/api/httpx"
	"github.com/pergola-ai/pergola/domain/conversation"
)

// rsReply turns chat events into a Responses object, or into the
// Responses API's semantic stream events: the answer messages of the turn
// become message items, the client tool calls it ends with function_call
// items.
type rsReply struct {
	model, previous, suffix string
	req                     *rsRequest
	convID, chatID, created int64
	end                     *conversation.Chat
	items                   []map[string]any // finished output items, in order
	open                    *rsOpen          // the message item being streamed
	announced               bool             // response.created was sent
	ephemeral               bool             // a stateless turn: nothing stored
}

// rsOpen is an answer message being streamed as an output item.
type rsOpen struct {
	msgID int64
	index int
	text  string
}

// rsEvent is one event of the stream.
type rsEvent struct {
	kind string
	body map[string]any
}

func (r *rsReply) id() string {
	if r.ephemeral {
		return "resp_" + strconv.FormatInt(r.chatID, 10)
	}
	return responseID(r.convID, r.chatID, r.suffix)
}

// collect takes one chat event and returns the stream events it makes.
func (r *rsReply) collect(e chatapp.Event) []rsEvent {
	var out []rsEvent
	if e.Chat != nil {
		r.convID, r.chatID, r.created, r.end = e.Chat.ConversationID, e.Chat.ID, httpx.Unix(e.Chat.CreatedAt), e.Chat
		if !r.announced { // the first chat event: created, or continued with function outputs
			r.announced = true
			out = []rsEvent{{"response.created", map[string]any{"response": r.object("in_progress")}},
				{"response.in_progress", map[string]any{"response": r.object("in_progress")}}}
		}
	}
	return append(out, r.step(e)...)
}

// step is collect for the events after the first.
func (r *rsReply) step(e chatapp.Event) []rsEvent {
	switch {
	case e.Message != nil && e.Message.Type == conversation.TypeAnswer && e.Kind == chatapp.EventMessageDelta:
		return r.delta(e.Message)
	case e.Message != nil && e.Message.Type == conversation.TypeAnswer && e.Kind == chatapp.EventMessageDone:
		return r.finishMessage(e.Message)
	case e.Kind == chatapp.EventRequiresAction:
		return r.functionCalls()
	case e.Kind == chatapp.EventChatFailed:
		return []rsEvent{{"response.failed", map[string]any{"response": r.object("failed")}}}
	case e.Chat != nil && e.Chat.Status.Terminal():
		status := "completed"
		if e.Chat.Status == conversation.ChatCanceled {
			status = "incomplete"
		}
		return []rsEvent{{"response." + status, map[string]any{"response": r.object(status)}}}
	}
	return nil
}

// delta streams a piece of an answer, opening its message item first.
func (r *rsReply) delta(m *conversation.Message) []rsEvent {
	out := r.openMessage(m.ID)
	r.open.text += m.Content
	return append(out, rsEvent{"response.output_text.delta", r.partRef(map[string]any{"delta": m.Content, "logprobs": []any{}})})
}

func (r *rsReply) openMessage(msgID int64) []rsEvent {
	if r.open != nil && r.open.msgID == msgID {
		return nil
	}
	r.open = &rsOpen{msgID: msgID, index: len(r.items)}
	item := messageItem(msgID, "", "in_progress")
	item["content"] = []any{}
	return []rsEvent{
		{"response.output_item.added", map[string]any{"output_index": r.open.index, "item": item}},
		{"response.content_part.added", r.partRef(map[string]any{"part": textPart("")})},
	}
}

// finishMessage closes an answer's item with its whole text.
func (r *rsReply) finishMessage(m *conversation.Message) []rsEvent {
	out := r.openMessage(m.ID)
	item := messageItem(m.ID, m.Content, "completed")
	out = append(out,
		rsEvent{"response.output_text.done", r.partRef(map[string]any{"text": m.Content, "logprobs": []any{}})},
		rsEvent{"response.content_part.done", r.partRef(map[string]any{"part": textPart(m.Content)})},
		rsEvent{"response.output_item.done", map[string]any{"output_index": r.open.index, "item": item}})
	r.items = append(r.items, item)
	r.open = nil
	return out
}

// partRef is a content part event's body: which item and part it is about.
func (r *rsReply) partRef(body map[string]any) map[string]any {
	body["item_id"] = "msg_" + strconv.FormatInt(r.open.msgID, 10)
	body["output_index"] = r.open.index
	body["content_index"] = 0
	return body
}

// functionCalls adds the client tool calls the turn ended with.
func (r *rsReply) functionCalls() []rsEvent {
	if r.end == nil || r.end.RequiredAction == nil {
		return nil
	}
	var out []rsEvent
	for _, tc := range r.end.RequiredAction.ToolCalls {
		item := map[string]any{"type": "function_call", "id": "fc_" + tc.ID, "call_id": tc.ID, "name": tc.Name,
			"arguments": tc.Arguments, "status": "completed"}
		index := len(r.items)
		r.items = append(r.items, item)
		out = append(out, rsEvent{"response.output_item.added", map[string]any{"output_index": index, "item": item}},
			rsEvent{"response.function_call_arguments.done", map[string]any{"item_id": item["id"], "output_index": index,
				"name": tc.Name, "arguments": tc.Arguments}},
			rsEvent{"response.output_item.done", map[string]any{"output_index": index, "item": item}})
	}
	return append(out, rsEvent{"response.completed", map[string]any{"response": r.object("completed")}})
}

func messageItem(msgID int64, text, status string) map[string]any {
	return map[string]any{"type": "message", "id": "msg_" + strconv.FormatInt(msgID, 10), "status": status,
		"role": "assistant", "content": []any{textPart(text)}}
}

func textPart(text string) map[string]any {
	return map[string]any{"type": "output_text", "text": text, "annotations": []any{}}
}

// object is the Response object as it stands.
func (r *rsReply) object(status string) map[string]any {
	o := map[string]any{"id": r.id(), "object": "response", "created_at": r.created, "status": status, "model": r.model,
		"output": nonNilItems(r.items), "usage": r.usage(), "error": nil, "incomplete_details": nil,
		"instructions": nilIfEmpty(r.req.Instructions), "previous_response_id": nilIfEmpty(r.previous),
		"tools": nonNilTools(r.req.Tools), "tool_choice": "auto", "parallel_tool_calls": true, "store": !r.ephemeral,
		"text": map[string]any{"format": map[string]any{"type": "text"}}, "truncation": "disabled", "metadata": map[string]any{}}
	if len(r.req.ToolChoice) > 0 {
		o["tool_choice"] = r.req.ToolChoice
	}
	if r.req.Text != nil && r.req.Text.Format != nil {
		o["text"] = map[string]any{"format": r.req.Text.Format}
	}
	if status == "failed" && r.end != nil {
		o["error"] = map[string]any{"code": "server_error", "message": failedError(r.end).Message}
	}
	if status == "incomplete" {
		o["incomplete_details"] = map[string]any{"reason": "canceled"}
	}
	return o
}

func (r *rsReply) usage() map[string]any {
	var u conversation.Usage
	if r.end != nil {
		u = r.end.Usage
	}
	return map[string]any{"input_tokens": u.InputTokens, "input_tokens_details": map[string]any{"cached_tokens": 0},
		"output_tokens": u.OutputTokens, "output_tokens_details": map[string]any{"reasoning_tokens": 0}, "total_tokens": u.Total()}
}

func nonNilItems(items []map[string]any) []map[string]any {
	if items == nil {
		return []map[string]any{}
	}
	return items
}

func nonNilTools(tools []oaTool) any {
	out := make([]map[string]any, 0, len(tools))
	for _, t := range tools {
		spec := t.spec()
		out = append(out, map[string]any{"type": "function", "name": spec.Name, "description": spec.Description,
			"parameters": spec.Parameters, "strict": false})
	}
	return out
}

func nilIfEmpty(s string) any {
	if s == "" {
		return nil
	}
	return s
}

// answer sends the response: streamed events, or the object once the
// turn is over (a failed run is a 502 server_error, as on chat
// completions).
func (r *rsReply) answer(ctx context.Context, c *app.RequestContext, q *queue) error {
	if r.req.Stream {
		r.stream(ctx, c, q)
		return nil
	}
	var last []rsEvent
	for {
		e, ok := q.next(ctx)
		if !ok {
			return ctx.Err()
		}
		if evs := r.collect(e); len(evs) > 0 {
			last = evs
		}
		if e.Kind == chatapp.EventDone {
			break
		}
	}
	if r.end != nil && r.end.Status == conversation.ChatFailed {
		c.JSON(502, map[string]any{"error": failedError(r.end)})
		return nil
	}
	if len(last) == 0 {
		return ctx.Err()
	}
	c.JSON(200, last[len(last)-1].body["response"])
	return nil
}

// stream writes the semantic events, each with its sequence number.
func (r *rsReply) stream(ctx context.Context, c *app.RequestContext, q *queue) {
	w := sse.NewWriter(c)
	defer w.Close()
	seq := 0
	for {
		e, ok := q.next(ctx)
		if !ok || e.Kind == chatapp.EventDone {
			return
		}
		for _, ev := range r.collect(e) {
			ev.body["type"], ev.body["sequence_number"] = ev.kind, seq
			seq++
			b, _ := json.Marshal(ev.body)
			if w.WriteEvent("", ev.kind, b) != nil {
				return
			}
		}
	}
}
