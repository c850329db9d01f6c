package chat

import (
	"context"
	"strconv"

	"github.com/pergola-ai/pergola/domain/conversation"
)

// What an end user reads when a chat fails, on every surface (the API's
// last error, the web chat, channels, MCP, the OpenAI-compatible routes):
// a short apology without internal ids. The error behind it (a provider's
// status and URL, eino's node wrapping) is for the builder: it goes to
// the log with the request's log id and the chat id (the response's
// X-Tt-Logid header and the chat's id find it), and into the last error
// of the builder's own debug chats, with the log id.
const (
	MsgModelUnavailable = "The model is unavailable right now; please try again."
	MsgAnswerFailed     = "Something went wrong while answering; please try again."
)

// maxDetail bounds the detail a debug chat's last error carries.
const maxDetail = 500

type logIDKey struct{}

// WithLogID returns ctx carrying the log id of the request that runs a
// chat; failures log it with the detail, and a builder's debug chat
// names it.
func WithLogID(ctx context.Context, id string) context.Context {
	return context.WithValue(ctx, logIDKey{}, id)
}

// LogIDFrom returns the log id WithLogID put in ctx, or "".
func LogIDFrom(ctx context.Context) string {
	id, _ := ctx.Value(logIDKey{}).(string)
	return id
}

// BuilderFailure is the text a builder's debug chat reads for a
// failure: msg and where the detail can be found, the log id (or,
// without one, the chat id).
func BuilderFailure(msg, logID string, chatID int64) string {
	if logID != "" {
		return msg + " (log id: " + logID + ")"
	}
	return msg + " (chat id: " + strconv.FormatInt(chatID, 10) + ")"
}

// failure logs a failed run with its detail and returns the chat's last
// error: the short text for the end user; a debug chat, the builder's own,
// gets the log id and the detail too.
func (s *Service) failure(ctx context.Context, t *turn, runErr error, modelFailed bool) *conversation.ChatError {
	msg := MsgAnswerFailed
	if modelFailed {
		msg = MsgModelUnavailable
	}
	if m, ok := budgetMessage(runErr); ok {
		msg = m
	}
	logID := LogIDFrom(ctx)
	s.d.Log.ErrorContext(ctx, "chat failed", "logid", logID, "chat_id", t.chat.ID, "bot_id", t.chat.BotID,
		"connector_id", t.chat.ConnectorID, "model_failed", modelFailed, "err", runErr)
	if t.chat.ConnectorID != ConnectorDebug {
		return &conversation.ChatError{Code: 5000, Msg: msg}
	}
	detail := runErr.Error()
	if len(detail) > maxDetail {
		detail = detail[:maxDetail] + "…"
	}
	return &conversation.ChatError{Code: 5000, Msg: BuilderFailure(msg, logID, t.chat.ID) + " Detail: " + detail}
}
