package chat

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/cloudwego/eino/schema"

	"github.com/pergola-ai/pergola/domain/conversation"
)

// state is what a chat keeps in Chat.State to be continued: waiting for
// client tool outputs, or having asked the end user a tool's question.
type state struct {
	Transcript []*schema.Message `json:"transcript"`
	Asked      *askedTool        `json:"asked,omitempty"`
	// BotID is the bot that was answering, when the conversation was
	// handed to another bot than the chat's; 0: the chat's bot.
	BotID int64 `json:"bot_id,omitempty"`
}

// persist stores the turn's messages and the chat's outcome, then tells
// the client: the final event (chat completed, failed, requires_action or
// canceled) is sent only once that write has committed, so a client that
// saw it can read all of it back, even if the process dies right after.
// It writes with a context of its own: a canceled run still records that
// it was canceled.
func (s *Service) persist(ctx context.Context, t *turn, rs *runState, runErr error) {
	wctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 10*time.Second)
	defer cancel()
	rs.mu.Lock()
	msgs, usage, pending, modelFailed := rs.out, rs.usage, rs.pending, rs.modelFailed
	transcript := s.transcript(rs)
	rs.mu.Unlock()
	now := s.d.Now().UTC()
	var fail *conversation.ChatError
	if runErr != nil && !canceled(runErr, ctx.Err()) {
		fail = s.failure(wctx, t, runErr, modelFailed)
	}
	if t.ephemeral {
		msgs, transcript = nil, nil
	}
	if err := t.stored.wait(context.Background()); err != nil {
		return // Start failed and said so; there is no chat to record
	}
	apply := func(c *conversation.Chat) error {
		c.Usage = c.Usage.Add(usage)
		if c.Status == conversation.ChatCanceled {
			return nil // canceled while it ran: that stays the outcome
		}
		outcome(c, runErr, ctx.Err(), fail, pending, transcript, now)
		return nil
	}
	// This process put the chat in progress and holds it as stored, so
	// the outcome is written without reading it back; the store applies
	// apply to the stored chat only if it moved on meanwhile (canceled).
	ended := *t.chat
	_ = apply(&ended)
	chat, err := s.endTurn(wctx, &ended, msgs, apply)
	if err != nil {
		err = fmt.Errorf("chat: record the outcome: %w", err)
		chat = t.chat
		outcome(chat, err, nil, s.failure(wctx, t, errors.Join(runErr, err), false), nil, nil, now)
	}
	s.sendOutcome(t.sink, chat)
}

// transcript is what a chat resumes from, for client tool outputs or the
// end user's answer to a tool's question: what the model saw, its message
// with the tool calls, and the results of the server tools among them.
// The open calls are answered when the chat resumes, so the model then
// gets every call of that message answered right after it, as
// OpenAI-compatible providers require.
func (s *Service) transcript(rs *runState) []byte {
	if rs.asked != nil && rs.askedFrom != nil {
		b, _ := json.Marshal(state{Transcript: rs.askedFrom, Asked: rs.asked, BotID: rs.t.handedTo()})
		return b
	}
	if (len(rs.pending) == 0 && rs.asked == nil) || rs.calling == nil {
		return nil
	}
	msgs := append(append([]*schema.Message{}, rs.lastInput...), rs.calling)
	msgs = append(msgs, rs.results...)
	b, _ := json.Marshal(state{Transcript: msgs, Asked: rs.asked, BotID: rs.t.handedTo()})
	return b
}

// outcome sets a chat's final status from how its run ended; fail is the
// last error of a failed run.
func outcome(c *conversation.Chat, runErr, ctxErr error, fail *conversation.ChatError, pending []conversation.ToolCall, transcript []byte, now time.Time) {
	switch {
	case canceled(runErr, ctxErr):
		c.Status = conversation.ChatCanceled
		c.CompletedAt = &now
	case runErr != nil:
		c.Status = conversation.ChatFailed
		c.FailedAt = &now
		c.LastError = fail
	case len(pending) > 0:
		c.Status = conversation.ChatRequiresAction
		c.RequiredAction = &conversation.RequiredAction{ToolCalls: pending}
		c.State = transcript
	default:
		c.Status = conversation.ChatCompleted
		c.CompletedAt = &now
		c.State = transcript // a tool's open question, or nothing
	}
}

func canceled(runErr, ctxErr error) bool {
	return errors.Is(ctxErr, context.Canceled) || errors.Is(runErr, context.Canceled)
}

func (s *Service) sendOutcome(sink Sink, chat *conversation.Chat) {
	kind := map[conversation.ChatStatus]EventKind{
		conversation.ChatCompleted: EventChatCompleted, conversation.ChatFailed: EventChatFailed,
		conversation.ChatRequiresAction: EventRequiresAction, conversation.ChatCanceled: EventChatCanceled,
	}[chat.Status]
	if kind == "" {
		kind = EventChatFailed
	}
	sink.Send(Event{Kind: kind, Chat: chat})
	sink.Send(Event{Kind: EventDone})
}
