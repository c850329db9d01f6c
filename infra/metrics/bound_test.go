package metrics

import (
	"fmt"
	"sync"
	"testing"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/pergola-ai/pergola/application/chat"
)

// N+k bots turning over give at most N+1 label values: the first N and
// "other"; a bot seen first keeps its label after the cap is reached.
func TestBotCapHolds(t *testing.T) {
	const n, k = 5, 7
	reg := prometheus.NewRegistry()
	h := NewChatHook(reg, NewLabels(Bounds{Workspaces: 100, Bots: n, Tools: 10}))
	for bot := int64(1); bot <= n+k; bot++ {
		h.OnStep(t.Context(), chat.Step{Kind: chat.StepTurnEnd, ChatID: bot, BotID: bot, WorkspaceID: 9, Text: "completed"})
	}
	h.OnStep(t.Context(), chat.Step{Kind: chat.StepTurnEnd, ChatID: 99, BotID: 1, WorkspaceID: 9, Text: "completed"})
	if got := len(family(t, reg, "pergola_chat_turns_total")); got != n+1 {
		t.Fatalf("series = %d, want %d (the first %d bots and other)", got, n+1, n)
	}
	if got := value(t, h.turns.WithLabelValues("9", Other, "completed")); got != k {
		t.Errorf("other = %v, want %d", got, k)
	}
	if got := value(t, h.turns.WithLabelValues("9", "1", "completed")); got != 2 {
		t.Errorf("bot 1 = %v, want 2 (it keeps its label past the cap)", got)
	}
}

func TestBoundAllowList(t *testing.T) {
	b := NewBound(10, []string{"7", "8"})
	got := []string{b.Label("1"), b.Label("7"), b.Label("9"), b.Label("8")}
	if fmt.Sprint(got) != "[other 7 other 8]" {
		t.Errorf("labels = %v, want only the allowed ids", got)
	}
	if NewBound(0, nil).Label("1") != Other {
		t.Error("a bound of 0 must make every value other")
	}
}

// Concurrent first sightings never let more than max values through.
func TestBoundConcurrent(t *testing.T) {
	b := NewBound(50, nil)
	var wg sync.WaitGroup
	var mu sync.Mutex
	kept := map[string]bool{}
	for i := range 500 {
		wg.Go(func() {
			if v := b.Label(fmt.Sprint(i)); v != Other {
				mu.Lock()
				kept[v] = true
				mu.Unlock()
			}
		})
	}
	wg.Wait()
	if len(kept) != 50 {
		t.Errorf("kept %d values, want 50", len(kept))
	}
}

// Tools are bounded as (plugin, tool) pairs: same-named tools of two
// plugins are two series; past the bound both labels are other.
func TestToolCapHolds(t *testing.T) {
	reg := prometheus.NewRegistry()
	h := NewChatHook(reg, NewLabels(Bounds{Tools: 3}))
	for _, origin := range []string{"11", "12", "workflow", "13", "14"} {
		h.OnStep(t.Context(), chat.Step{Kind: chat.StepToolResult, ToolOrigin: origin, ToolName: "search"})
	}
	if got := len(family(t, reg, "pergola_tool_calls_total")); got != 4 {
		t.Fatalf("tool series = %d, want 4", got)
	}
	for _, c := range [][]string{{"11", "search"}, {"12", "search"}, {"workflow", "search"}} {
		if got := value(t, h.toolCalls.WithLabelValues(c[0], c[1], "ok")); got != 1 {
			t.Errorf("%v = %v, want 1", c, got)
		}
	}
	if got := value(t, h.toolCalls.WithLabelValues(Other, Other, "ok")); got != 2 {
		t.Errorf("other = %v, want 2", got)
	}
}
