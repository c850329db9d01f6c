package chat

import (
	"context"
	"errors"
	"strings"

	"github.com/cloudwego/hertz/pkg/app"

	chatapp "github.com/pergola-ai/pergola/application/chat"
	"github.com/pergola-ai/pergola/backend/api/httpx"
	"github.com/pergola-ai/pergola/domain/conversation"
	"github.com/pergola-ai/pergola/domain/errs"
)

// stateless reports whether a request is answered without a stored
// conversation, as chat completions are: it continues no response and
// either says store: false or carries its own transcript (the function
// calls of earlier turns and their outputs). Agent frameworks (the
// Vercel AI SDK, LangChain) run their tool loops that way.
func stateless(req rsRequest, in rsInput) bool {
	if req.PreviousResponseID != "" {
		return false
	}
	return req.Store != nil && !*req.Store || in.calls || len(in.outputs) > 0
}

// completeResponse runs the turn over the request's transcript; nothing
// is stored, so the response cannot be continued by its id nor read back.
func (h Handlers) completeResponse(ctx context.Context, c *app.RequestContext, botID int64, req rsRequest, in rsInput, tools chatapp.RequestTools, r *rsReply, q *queue) error {
	msgs, lines := in.transcript, in.at.lines
	if req.Instructions != "" {
		msgs = append([]chatapp.CompletionMessage{{Role: "system", Content: req.Instructions}}, msgs...)
		lines = append([]int{-1}, lines...)
	}
	r.ephemeral = true
	cr := chatapp.CompletionRequest{BotID: botID, User: req.User, Messages: msgs, Tools: tools}
	return in.at.rename(toolOrderError(h.Svc.Complete(ctx, httpx.Caller(c), cr, q)), "messages", lines)
}

// toolOrderError explains an error in the order of tool calls and their
// answers in terms of the input items the caller sent.
func toolOrderError(err error) error {
	var fe *errs.FieldError
	if errors.As(err, &fe) && strings.HasPrefix(fe.Field, "messages") && strings.Contains(fe.Reason, "tool") {
		return errs.Invalid(fe.Field, "%s (function_call items are read as an assistant message's tool calls, "+
			"function_call_output items as the tool messages answering them): send each function_call before its output, "+
			"or the earlier response's id as previous_response_id", fe.Reason)
	}
	return err
}

// addCall adds a function_call item to the transcript: calls that follow
// an assistant message (or each other) belong to that message, as in chat
// completions.
func (in *rsInput) addCall(tc conversation.ToolCall) {
	if n := len(in.transcript); n > 0 && in.transcript[n-1].Role == "assistant" {
		in.transcript[n-1].ToolCalls = append(in.transcript[n-1].ToolCalls, tc)
		return
	}
	in.transcript = append(in.transcript, chatapp.CompletionMessage{Role: "assistant", ToolCalls: []conversation.ToolCall{tc}})
}
