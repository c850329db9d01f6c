package chatflow

import (
	"context"
	"net/http"

	chatapp "github.com/pergola-ai/pergola/application/chat"
	"github.com/pergola-ai/pergola/backend/api/httpx"
	"github.com/pergola-ai/pergola/domain/conversation"
	wf "github.com/pergola-ai/pergola/workflow"
)

// nodeFailure is the last error of a turn whose workflow failed: a short
// text for the end user, without internal ids. The detail (the node, the
// provider's words) stays in the run's node history and goes to the log.
func (t *turn) nodeFailure(ctx context.Context, f *wf.RunError) *conversation.ChatError {
	t.log(ctx, "chatflow: the workflow failed", f)
	msg := chatapp.MsgAnswerFailed
	if f.Type == "llm" {
		msg = chatapp.MsgModelUnavailable
	}
	return &conversation.ChatError{Code: httpx.CodeInternal, Msg: msg}
}

// runError is the last error of a turn that could not run its workflow:
// what the caller can fix is said as it is; anything else is logged and
// shown as a short text (the log has it under the request's log id).
func (t *turn) runError(ctx context.Context, err error) *conversation.ChatError {
	status, code, msg := httpx.Classify(err)
	if status >= http.StatusInternalServerError {
		t.log(ctx, "chatflow: the turn failed", err)
		msg = chatapp.MsgAnswerFailed
	}
	return &conversation.ChatError{Code: code, Msg: msg}
}

func (t *turn) log(ctx context.Context, what string, err error) {
	if t.h.Log != nil {
		t.h.Log.ErrorContext(ctx, what, "logid", t.logID, "conversation_id", t.conv.ID, "run_id", t.runID, "err", err)
	}
}
