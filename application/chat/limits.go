package chat

import (
	"encoding/json"
	"strconv"
	"unicode/utf8"

	"github.com/cloudwego/eino/schema"

	convapp "github.com/pergola-ai/pergola/application/conversation"
	"github.com/pergola-ai/pergola/domain/conversation"
	"github.com/pergola-ai/pergola/domain/errs"
)

// checkOutputs applies the message limit to submitted tool outputs: they
// reach the model as messages do.
func (s *Service) checkOutputs(outputs []conversation.ToolOutput) error {
	for i, o := range outputs {
		if err := s.d.Limits.CheckText("tool_outputs["+strconv.Itoa(i)+"].output", o.Output); err != nil {
			return err
		}
	}
	return nil
}

// checkCompletionTexts applies the message limit to each message of an
// OpenAI request, whatever its role: the caller sends them all.
func (s *Service) checkCompletionTexts(msgs []CompletionMessage) error {
	for i, m := range msgs {
		at := "messages[" + strconv.Itoa(i) + "]"
		if err := s.d.Limits.CheckText(at+".content", m.Content); err != nil {
			return err
		}
		for j, tc := range m.ToolCalls {
			if err := s.d.Limits.CheckText(at+".tool_calls["+strconv.Itoa(j)+"].function.arguments", tc.Arguments); err != nil {
				return err
			}
		}
	}
	return nil
}

// checkKeptTexts applies the history limit to what fitHistory cannot
// leave out of an OpenAI request: the caller's system messages and the
// messages after the last user message (a tool loop's calls and results).
// Without it a request of many such messages, each within the message
// limit, would reach the model whole.
func (s *Service) checkKeptTexts(msgs []CompletionMessage) error {
	last := -1
	for i, m := range msgs {
		if m.Role == "user" {
			last = i
		}
	}
	n := 0
	for i, m := range msgs {
		if i > last || m.Role == "system" {
			n += completionChars(m)
		}
	}
	if n > s.d.Limits.HistoryChars {
		return errs.Invalid("messages", "the system messages and the messages after the last user message are %d characters together, "+
			"over the limit of %d (%s) on what a turn sends the model besides the user's message; send fewer or shorter ones",
			n, s.d.Limits.HistoryChars, convapp.HistoryCharsSetting)
	}
	return nil
}

// checkToolTexts applies the limits to a request's tools, which reach the
// model with every call of the turn: each description within the message
// limit, and all descriptions and parameter schemas together within the
// history limit.
func (s *Service) checkToolTexts(rt RequestTools) error {
	n := 0
	for i, t := range rt.Tools {
		if err := s.d.Limits.CheckText(rt.Field+"["+strconv.Itoa(i)+"].description", t.Description); err != nil {
			return err
		}
		params, _ := json.Marshal(t.Parameters)
		n += utf8.RuneCountInString(t.Description) + utf8.RuneCount(params)
	}
	if n > s.d.Limits.HistoryChars {
		return errs.Invalid(rt.Field, "the tools' descriptions and parameters are %d characters together, over the limit of %d (%s); "+
			"send fewer tools or shorter descriptions", n, s.d.Limits.HistoryChars, convapp.HistoryCharsSetting)
	}
	return nil
}

// completionChars counts the characters of a request message's text and
// its tool calls' arguments.
func completionChars(m CompletionMessage) int {
	n := utf8.RuneCountInString(m.Content)
	for _, tc := range m.ToolCalls {
		n += utf8.RuneCountInString(tc.Arguments)
	}
	return n
}

// fitHistory trims what a turn sends the model to the history limit. in
// is the system prompt followed by the conversation; the turn's own
// messages, from the last user message on, are always kept (each is within
// the message limit). The earlier messages are kept newest first while
// their characters together fit HistoryChars; the rest, the oldest, are
// dropped, and so are assistant and tool messages left at the head of what
// is kept, so the history starts with a user message and no tool result
// is left without its call. System messages a caller sent are kept.
func fitHistory(in []*schema.Message, maxChars int) []*schema.Message {
	if len(in) < 3 || in[0].Role != schema.System {
		return in
	}
	turn := lastUser(in)
	if turn <= 1 {
		return in
	}
	keep, total := turn, 0
	for keep > 1 {
		n := messageChars(in[keep-1])
		if total+n > maxChars {
			break
		}
		total += n
		keep--
	}
	for keep < turn && in[keep].Role != schema.User {
		keep++
	}
	if keep == 1 {
		return in
	}
	out := make([]*schema.Message, 0, len(in)-keep+1)
	out = append(out, in[0])
	for _, m := range in[1:keep] {
		if m.Role == schema.System {
			out = append(out, m)
		}
	}
	return append(out, in[keep:]...)
}

// lastUser is the index of the last user message of in; 0 when none.
func lastUser(in []*schema.Message) int {
	for i := len(in) - 1; i > 0; i-- {
		if in[i].Role == schema.User {
			return i
		}
	}
	return 0
}

// messageChars counts the characters of a message's text: its content,
// its text parts, its tool calls' arguments. Images count for nothing
// here: uploads are bounded by the file limit.
func messageChars(m *schema.Message) int {
	n := utf8.RuneCountInString(m.Content)
	for _, p := range m.UserInputMultiContent {
		n += utf8.RuneCountInString(p.Text)
	}
	for _, tc := range m.ToolCalls {
		n += utf8.RuneCountInString(tc.Function.Arguments)
	}
	return n
}
