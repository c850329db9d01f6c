package chat

import (
	"context"
	"encoding/json"
	"errors"
	"slices"

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

// askedTool is a tool call that ended the turn with a question for the
// end user; the next message of the conversation answers it. Question is
// the text the end user saw; Exchanges are the questions the same call
// asked and had answered before it.
type askedTool struct {
	CallID    string     `json:"call_id"`
	Name      string     `json:"name"`
	Payload   string     `json:"payload"`
	Question  string     `json:"question,omitempty"`
	Exchanges []exchange `json:"exchanges,omitempty"`
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
	if prev.Status != conversation.ChatCompleted || len(prev.State) == 0 {
		return nil, nil
	}
	var st state
	if json.Unmarshal(prev.State, &st) != nil || st.Asked == nil || st.answering(prev) != b.ID {
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
		question := rs.directAnswer(ctx, result)
		rs.keepAsking(&resumeTurn{asked: &askedTool{CallID: r.asked.CallID, Name: r.asked.Name, Payload: result,
			Question: question, Exchanges: r.exchanges()}, transcript: r.transcript})
		return nil
	case answered:
		rs.directAnswer(ctx, result)
		return nil
	}
	t.input = r.continued(result)
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

// exchange is a question a tool asked the end user and their answer.
type exchange struct {
	Question string `json:"question"`
	Answer   string `json:"answer"`
}

// exchanges returns the questions the asking call had answered, this
// turn's answer included.
func (r *resumeTurn) exchanges() []exchange {
	return append(append([]exchange{}, r.asked.Exchanges...), exchange{Question: r.asked.Question, Answer: r.answer})
}

// continued is what the model goes on with once the tool has its result:
// the transcript, which ends with the model's message calling the tool
// (and the results of the other calls of that message), then the tool's
// answer to that call. The end user's answers are part of the tool's
// answer, since they were the tool's input: a provider takes no other
// message between a call and its result.
func (r *resumeTurn) continued(result string) []*schema.Message {
	content := resultWithAnswers(r.exchanges(), result)
	in := append([]*schema.Message{}, r.transcript...)
	if !callOpen(in, r.asked.CallID) {
		// A transcript kept by an older version ends with the question
		// instead of the call: the tool's answer becomes a note.
		return append(in, schema.UserMessage(r.answer),
			schema.SystemMessage("The tool "+r.asked.Name+" you called has finished with: "+content))
	}
	return append(in, schema.ToolMessage(content, r.asked.CallID, schema.WithToolName(r.asked.Name)))
}

// resultWithAnswers is the tool message of a call that asked the end
// user: {"asked_user":[{"question":…,"answer":…}],"result":…}, the result
// as JSON when it is JSON, else as a string.
func resultWithAnswers(asked []exchange, result string) string {
	var res any = result
	if json.Valid([]byte(result)) {
		res = json.RawMessage(result)
	}
	b, err := json.Marshal(struct {
		AskedUser []exchange `json:"asked_user"`
		Result    any        `json:"result"`
	}{asked, res})
	if err != nil {
		return result
	}
	return string(b)
}

// callOpen reports whether msgs end with an assistant message calling
// callID, followed only by tool messages answering its other calls.
func callOpen(msgs []*schema.Message, callID string) bool {
	for i := len(msgs) - 1; i >= 0; i-- {
		m := msgs[i]
		switch {
		case m.Role == schema.Tool && m.ToolCallID != callID:
			continue
		case m.Role == schema.Assistant:
			return slices.ContainsFunc(m.ToolCalls, func(tc schema.ToolCall) bool { return tc.ID == callID })
		}
		return false
	}
	return false
}
