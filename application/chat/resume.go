package chat

import (
	"context"
	"encoding/json"
	"errors"

	"github.com/cloudwego/eino/schema"

	"github.com/pergola-ai/pergola/domain/bot"
	"github.com/pergola-ai/pergola/domain/conversation"
	"github.com/pergola-ai/pergola/domain/errs"
)

// resumeTurn is a turn that answers the question a tool asked in the
// conversation's previous turn.
type resumeTurn struct {
	bot        *bot.Bot
	asked      *askedTool
	transcript []*schema.Message // up to the model's call of the asking tool
	answer     string            // the end user's message
}

// openQuestion returns the question a tool left open in the conversation's
// latest chat, if there is one. Only tools from tool sources ask, so a bot
// without them costs no read here.
func (s *Service) openQuestion(ctx context.Context, conversationID int64, b *bot.Bot, c *compiled) (*resumeTurn, error) {
	if s.d.Resumer == nil || !c.sourced {
		return nil, nil
	}
	prev, err := s.d.Chats.LatestChat(ctx, conversationID)
	if errors.Is(err, errs.ErrNotFound) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	if prev.BotID != b.ID || prev.Status != conversation.ChatCompleted || len(prev.State) == 0 {
		return nil, nil
	}
	var st state
	if json.Unmarshal(prev.State, &st) != nil || st.Asked == nil {
		return nil, nil
	}
	return &resumeTurn{bot: b, asked: st.Asked, transcript: st.Transcript}, nil
}

// resumeTool answers the open question with the end user's message. The
// tool may ask again (the turn ends with the new question), answer for the
// bot (its streamed text is the answer), or give a result the agent goes
// on with. A message that does not answer the question gets the tool's
// explanation as the answer, and the question stays open.
func (s *Service) resumeTool(ctx context.Context, t *turn, rs *runState) error {
	r := t.resume
	result, answered, err := s.d.Resumer.ResumeTool(ctx, r.bot, r.asked.Payload, r.answer)
	switch {
	case errors.Is(err, errs.ErrInvalid):
		rs.keepAsking(r)
		rs.directAnswer(ctx, err.Error())
		return nil
	case err != nil:
		return err
	case s.d.Resumer.Asks(result):
		rs.keepAsking(&resumeTurn{asked: &askedTool{CallID: r.asked.CallID, Name: r.asked.Name, Payload: result}, transcript: r.transcript})
		rs.directAnswer(ctx, result)
		return nil
	case answered:
		rs.directAnswer(ctx, result)
		return nil
	}
	t.input = append(append([]*schema.Message{}, r.transcript...),
		schema.ToolMessage(result, r.asked.CallID, schema.WithToolName(r.asked.Name)))
	m := t.newMessage(s, conversation.TypeToolResponse, result)
	rs.mu.Lock()
	rs.out = append(rs.out, m)
	rs.mu.Unlock()
	t.sink.Send(Event{Kind: EventMessageDone, Message: m})
	return s.runAgent(ctx, t, rs)
}

// keepAsking carries an open question into this turn's outcome.
func (rs *runState) keepAsking(r *resumeTurn) {
	rs.mu.Lock()
	defer rs.mu.Unlock()
	rs.asked = r.asked
	rs.askedFrom = r.transcript
}
