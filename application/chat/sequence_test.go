package chat

import (
	"testing"

	"github.com/pergola-ai/pergola/domain/bot"
	"github.com/pergola-ai/pergola/domain/conversation"
	"github.com/pergola-ai/pergola/domain/variable"
)

// TestToolRoundsKeepValidSequences: turns with tool rounds, a history
// window of one round and follow-up suggestions after a tool round send
// the model only conversations it takes; the fake refuses, as OpenAI
// does, a tool message without its call or a call without its result,
// which would fail a turn here.
func TestToolRoundsKeepValidSequences(t *testing.T) {
	h := newHarness(t, bot.Config{Name: "b", HistoryRounds: 1, Variables: []variable.Definition{{Keyword: "k"}},
		SuggestReply: bot.SuggestReply{Enabled: true}})
	for _, q := range []string{
		`#call setKeywordMemory {"data":[{"keyword":"k","value":"a"}]}`,
		`#call setKeywordMemory {"data":[{"keyword":"k","value":"b"}]} #call setKeywordMemory {"data":[{"keyword":"k","value":"c"}]}`,
		"and now?",
	} {
		_, events := h.ask(t, q)
		if end := events[len(events)-2].Chat; end.Status != conversation.ChatCompleted {
			t.Fatalf("%q ended %s: %+v", q, end.Status, end.LastError)
		}
	}
	reqs := h.llm.Requests()
	last := reqs[len(reqs)-1]
	for _, m := range last.Messages {
		if m.Role == "tool" || len(m.ToolCalls) > 0 {
			t.Errorf("the history carries tool traffic of an earlier turn: %+v", m)
		}
	}
	if len(reqs) != 8 { // tool turns: the call, the answer after the round, the follow-ups; then answer and follow-ups
		t.Errorf("model calls = %d, want 8", len(reqs))
	}
}
