// Package chatflow serves POST /v1/workflows/chat: a workflow run as one
// turn of a conversation, answered with Coze's chat events.
package chatflow

import (
	"context"
	"encoding/json"
	"log/slog"
	"strings"

	"github.com/cloudwego/hertz/pkg/app"

	convapp "github.com/pergola-ai/pergola/application/conversation"
	workflowapp "github.com/pergola-ai/pergola/application/workflow"
	"github.com/pergola-ai/pergola/backend/api/conversations"
	"github.com/pergola-ai/pergola/backend/api/httpx"
	"github.com/pergola-ai/pergola/backend/api/workflows"
	"github.com/pergola-ai/pergola/domain/conversation"
	"github.com/pergola-ai/pergola/domain/errs"
	"github.com/pergola-ai/pergola/domain/identity"
	"github.com/pergola-ai/pergola/domain/workflow"
)

// UserInput is the start node parameter that receives the user's message,
// as Coze names it.
const UserInput = "USER_INPUT"

// RunModeChatflow is the run mode of workflows run as a conversation turn.
const RunModeChatflow workflow.RunMode = "chatflow"

// Handlers serves the chatflow route.
type Handlers struct {
	Workflows *workflowapp.Service
	Convs     *convapp.Service
	Log       *slog.Logger // failures with their detail; nil: none
}

type chatRequest struct {
	WorkflowID         httpx.ID                     `json:"workflow_id"`
	AdditionalMessages []conversations.EnterMessage `json:"additional_messages"`
	Parameters         json.RawMessage              `json:"parameters"`
	AppID              httpx.ID                     `json:"app_id"`
	BotID              httpx.ID                     `json:"bot_id"`
	ConversationID     httpx.ID                     `json:"conversation_id"`
	Ext                map[string]string            `json:"ext"`
}

// Chat answers POST /v1/workflows/chat. The last of additional_messages
// (a user message) is the start node's USER_INPUT, beside parameters; the
// messages are added to the conversation (a new one when conversation_id
// is empty), then the workflow's messages stream as the bot's answer and
// are kept in the conversation. Errors found before the run starts are
// JSON answers; a failed run is conversation.chat.failed. A run that
// stops at a question shows it as the bot's answer and ends the chat with
// conversation.chat.requires_action; the conversation's next message is
// the answer, and that run resumes with it, as in Coze Studio.
func (h Handlers) Chat(ctx context.Context, c *app.RequestContext) error {
	var req chatRequest
	if err := httpx.BindJSON(c, &req); err != nil {
		return err
	}
	p := httpx.Caller(c)
	in, msgs, err := req.toApp()
	if err != nil {
		return err
	}
	if err := h.Convs.CheckTexts("additional_messages", msgs); err != nil {
		return err
	}
	t, err := h.begin(ctx, p, &req, in, msgs)
	if err != nil {
		return err
	}
	t.write(ctx, c)
	return nil
}

// begin keeps the turn's messages and starts its run: the run waiting in
// the conversation for an answer, resumed with the user's message, or a
// new run.
func (h Handlers) begin(ctx context.Context, p identity.Principal, r *chatRequest, in workflowapp.RunRequest,
	msgs []convapp.MessageInput) (*turn, error) {
	conv, waiting, err := h.waiting(ctx, p, r)
	if err != nil {
		return nil, err
	}
	var pr *workflowapp.Prepared
	if waiting == nil {
		if pr, err = h.Workflows.Prepare(ctx, p, in); err != nil {
			return nil, err
		}
	}
	if conv == nil {
		if conv, err = h.Convs.Create(ctx, p, convapp.CreateInput{BotID: int64(r.BotID)}); err != nil {
			return nil, err
		}
	}
	for _, m := range msgs {
		if _, err := h.Convs.CreateMessage(ctx, p, conv.ID, m); err != nil {
			return nil, err
		}
	}
	q := workflows.NewEventQueue()
	go h.run(context.WithoutCancel(ctx), p, q, runStart{pr: pr, waiting: waiting, answer: msgs[len(msgs)-1].Content, conv: conv.ID})
	return &turn{h: h, caller: p, conv: conv, q: q}, nil
}

// runStart is how a turn's run starts: prepared, or waiting for answer.
type runStart struct {
	pr      *workflowapp.Prepared
	waiting *workflowapp.Waiting
	answer  string
	conv    int64
}

// run runs the turn into q. An answer that does not fit the waiting
// question (not one of its options, not its form) asks it again; the run
// goes on waiting.
func (h Handlers) run(ctx context.Context, p identity.Principal, q *workflows.EventQueue, s runStart) {
	switch {
	case s.waiting == nil:
		s.pr.ForConversation(s.conv)
		out, err := s.pr.Execute(ctx, q)
		q.Finish(out, err)
	case !s.waiting.FitsAnswer(s.answer):
		q.Finish(s.waiting.Outcome(), nil)
	default:
		out, err := h.Workflows.AnswerTurn(ctx, p, s.waiting, s.answer, q)
		q.Finish(out, err)
	}
}

// toApp checks the request and converts it into the run and the messages
// to keep.
func (r *chatRequest) toApp() (workflowapp.RunRequest, []convapp.MessageInput, error) {
	in := workflowapp.RunRequest{WorkflowID: int64(r.WorkflowID), BotID: int64(r.BotID), AppID: int64(r.AppID),
		Mode: RunModeChatflow, Stream: true, UserID: r.Ext["user_id"]}
	if in.WorkflowID == 0 {
		return in, nil, errs.Invalid("workflow_id", "is required")
	}
	msgs, err := conversations.EnterMessages("additional_messages", r.AdditionalMessages)
	if err != nil {
		return in, nil, err
	}
	if len(msgs) == 0 {
		return in, nil, errs.Invalid("additional_messages", "must hold the user's message")
	}
	last := msgs[len(msgs)-1]
	if last.Role != conversation.RoleUser {
		return in, nil, errs.Invalid("additional_messages["+itoa(len(msgs)-1)+"].role", "the last message must be the user's")
	}
	if in.Params, err = parameters(r.Parameters); err != nil {
		return in, nil, err
	}
	in.Params[UserInput] = last.Content
	return in, msgs, nil
}

// waiting returns the conversation a turn names and the run that waits
// in it for the turn's message; none for a new conversation.
func (h Handlers) waiting(ctx context.Context, p identity.Principal, r *chatRequest) (*conversation.Conversation, *workflowapp.Waiting, error) {
	if r.ConversationID == 0 {
		return nil, nil, nil
	}
	conv, err := h.Convs.Get(ctx, p, int64(r.ConversationID))
	if err != nil {
		return nil, nil, err
	}
	if r.BotID != 0 && conv.BotID != 0 && conv.BotID != int64(r.BotID) {
		return nil, nil, errs.Invalid("conversation_id", "conversation %d belongs to bot %d, not to bot %d", conv.ID, conv.BotID, int64(r.BotID))
	}
	w, err := h.Workflows.WaitingTurn(ctx, p, int64(r.WorkflowID), conv.ID, RunModeChatflow)
	return conv, w, err
}

// parameters reads the parameters: an object, or text holding one.
func parameters(raw json.RawMessage) (map[string]any, error) {
	s := strings.TrimSpace(string(raw))
	if s == "" || s == "null" {
		return map[string]any{}, nil
	}
	if s[0] == '"' {
		if err := json.Unmarshal([]byte(s), &s); err != nil {
			return nil, errs.Invalid("parameters", "is not valid JSON: %v", err)
		}
	}
	out := map[string]any{}
	if err := json.Unmarshal([]byte(s), &out); err != nil {
		return nil, errs.Invalid("parameters", "must be a JSON object: %v", err)
	}
	return out, nil
}
