package chat

import (
	"context"
	"strings"

	"github.com/cloudwego/eino/schema"

	"github.com/pergola-ai/pergola/domain/conversation"
)

const maxFollowUps = 3

// followUps asks the model for questions the user may ask next and adds
// them as follow_up messages. A failure only costs the suggestions.
func (s *Service) followUps(ctx context.Context, t *turn, rs *runState) {
	rs.mu.Lock()
	in := append([]*schema.Message{}, rs.lastInput...)
	if rs.lastOutput != nil {
		in = append(in, schema.AssistantMessage(rs.lastOutput.Content, nil))
	}
	rs.mu.Unlock()
	instruction := "Suggest up to 3 short questions the user could ask you next. Write one question per line, nothing else."
	if p := strings.TrimSpace(t.cfg.SuggestReply.Prompt); p != "" {
		instruction += " " + p
	}
	in = append(in, schema.UserMessage(instruction))
	out, err := t.compiled.model.Generate(ctx, in, t.compiled.options...)
	if err != nil {
		s.d.Log.WarnContext(ctx, "chat: follow-up suggestions failed", "chat_id", t.chat.ID, "err", err)
		return
	}
	if out.ResponseMeta != nil && out.ResponseMeta.Usage != nil {
		u := out.ResponseMeta.Usage
		rs.mu.Lock()
		rs.usage = rs.usage.Add(conversation.Usage{InputTokens: u.PromptTokens, OutputTokens: u.CompletionTokens})
		rs.mu.Unlock()
	}
	for _, q := range suggestions(out.Content) {
		m := t.newMessage(s, conversation.TypeFollowUp, q)
		rs.mu.Lock()
		rs.out = append(rs.out, m)
		rs.mu.Unlock()
		t.sink.Send(Event{Kind: EventMessageDone, Message: m})
	}
}

// suggestions reads the model's lines, dropping list markers and blanks.
func suggestions(text string) []string {
	var out []string
	for _, line := range strings.Split(text, "\n") {
		line = strings.TrimSpace(strings.TrimLeft(strings.TrimSpace(line), "-*•0123456789.) "))
		if line != "" && len(out) < maxFollowUps {
			out = append(out, line)
		}
	}
	return out
}
