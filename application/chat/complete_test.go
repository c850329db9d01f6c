package chat

import (
	"errors"
	"strings"
	"testing"

	"github.com/pergola-ai/pergola/domain/conversation"
	"github.com/pergola-ai/pergola/domain/errs"
)

// TestCompletionSequenceIsChecked: the OpenAI-compatible endpoint refuses,
// with a message saying what to fix, the conversations a provider would
// refuse, and takes the valid ones.
func TestCompletionSequenceIsChecked(t *testing.T) {
	user := CompletionMessage{Role: "user", Content: "hi"}
	calls := func(ids ...string) CompletionMessage {
		m := CompletionMessage{Role: "assistant"}
		for _, id := range ids {
			m.ToolCalls = append(m.ToolCalls, conversation.ToolCall{ID: id, Name: "weather", Arguments: "{}"})
		}
		return m
	}
	tool := func(id string) CompletionMessage {
		return CompletionMessage{Role: "tool", Content: "sunny", ToolCallID: id}
	}
	cases := []struct {
		name string
		msgs []CompletionMessage
		want string // "" when valid
	}{
		{"plain", []CompletionMessage{user}, ""},
		{"parallel calls answered", []CompletionMessage{user, calls("a", "b"), tool("b"), tool("a")}, ""},
		{"two rounds", []CompletionMessage{user, calls("a"), tool("a"), calls("b"), tool("b")}, ""},
		{"empty", nil, "at least one message"},
		{"tool without a call", []CompletionMessage{user, tool("a")}, "messages[1].tool_call_id"},
		{"tool of an older call", []CompletionMessage{user, calls("a"), tool("a"), user, tool("a")}, "messages[4].tool_call_id"},
		{"a call left open", []CompletionMessage{user, calls("a", "b"), tool("a"), user}, `"b"`},
		{"ends with calls", []CompletionMessage{user, calls("a")}, `"a" of the last assistant message`},
		{"an id twice", []CompletionMessage{user, calls("a"), tool("a"), calls("a"), tool("a")}, "ids must be unique"},
		{"unknown role", []CompletionMessage{{Role: "robot"}}, "messages[0].role"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			err := checkCompletion(c.msgs)
			if c.want == "" {
				if err != nil {
					t.Fatalf("refused: %v", err)
				}
				return
			}
			if !errors.Is(err, errs.ErrInvalid) || !strings.Contains(err.Error(), c.want) {
				t.Fatalf("err = %v, want ErrInvalid saying %q", err, c.want)
			}
		})
	}
}
