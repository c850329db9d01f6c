package chat

import (
	"context"
	"encoding/json"
	"errors"
	"strings"

	"github.com/pergola-ai/pergola/domain/bot"
	"github.com/pergola-ai/pergola/domain/conversation"
)

// subQuestion is a question a sub-agent (a workflow of it, say) left open
// for the end user: the caller's turn ends with it, and the caller's
// next turn hands the end user's answer to the sub-agent's conversation,
// where the sub-agent's own open question takes it.
type subQuestion struct {
	BotID          int64  `json:"bot_id"`
	Name           string `json:"name"`
	ConversationID int64  `json:"conversation_id"`
	SectionID      int64  `json:"section_id"`
	ReturnDirectly bool   `json:"return_directly,omitempty"`
}

// subQuestionPrefix starts the payload of a sub-agent's question.
const subQuestionPrefix = `{"sub_agent_question":`

// fill names the sub-agent and its conversation.
func (q *subQuestion) fill(r subRun, chat *conversation.Chat) {
	*q = subQuestion{BotID: r.ref.BotID, Name: r.botName, ConversationID: chat.ConversationID, SectionID: chat.SectionID,
		ReturnDirectly: r.ref.ReturnDirectly}
}

// payload is the question as the caller's chat keeps it open.
func (q *subQuestion) payload() string {
	b, _ := json.Marshal(struct {
		Q *subQuestion `json:"sub_agent_question"`
	}{q})
	return string(b)
}

// parseSubQuestion reads a payload; ok is false for another tool's.
func parseSubQuestion(payload string) (*subQuestion, bool) {
	if !strings.HasPrefix(payload, subQuestionPrefix) {
		return nil, false
	}
	var v struct {
		Q *subQuestion `json:"sub_agent_question"`
	}
	if json.Unmarshal([]byte(payload), &v) != nil || v.Q == nil {
		return nil, false
	}
	return v.Q, true
}

// asksEndUser reports whether a sub-agent's chat completed with a
// question open for the end user.
func asksEndUser(c *conversation.Chat) bool {
	if c.Status != conversation.ChatCompleted || len(c.State) == 0 {
		return false
	}
	var st state
	return json.Unmarshal(c.State, &st) == nil && st.Asked != nil
}

// subAgentResumer resumes the questions sub-agents ask and passes every
// other question on to the tools' resumer (workflows), which may be nil.
type subAgentResumer struct {
	s     *Service
	inner ToolResumer
}

// Asks implements ToolResumer.
func (r subAgentResumer) Asks(result string) bool {
	if _, ok := parseSubQuestion(result); ok {
		return true
	}
	return r.inner != nil && r.inner.Asks(result)
}

// ResumeTool implements ToolResumer: a sub-agent's question is answered
// by running the sub-agent again in its conversation with the end user's
// answer. Its next question streams as the caller's answer and stays
// open; its answer goes to the caller's model, or is the caller's answer
// when the sub-agent returns directly.
func (r subAgentResumer) ResumeTool(ctx context.Context, b *bot.Bot, asked, answer string) (string, bool, error) {
	q, ok := parseSubQuestion(asked)
	if !ok {
		if r.inner == nil {
			return "", false, errors.New("chat: no tool can resume this question")
		}
		return r.inner.ResumeTool(ctx, b, asked, answer)
	}
	conv := &conversation.Conversation{ID: q.ConversationID, SectionID: q.SectionID, WorkspaceID: b.WorkspaceID, BotID: q.BotID}
	out, err := r.s.runSub(ctx, subRun{ref: bot.SubAgent{BotID: q.BotID, ReturnDirectly: q.ReturnDirectly}, botName: q.Name,
		conv: conv, text: answer})
	switch {
	case err != nil:
		return "", false, err
	case out.question != nil:
		if rs := runFrom(ctx); rs != nil {
			rs.delta(ctx, out.text)
		}
		return out.question.payload(), false, nil
	}
	return out.text, out.answered && q.ReturnDirectly, nil
}
