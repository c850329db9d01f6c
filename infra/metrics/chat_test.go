package metrics

import (
	"errors"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/pergola-ai/pergola/application/chat"
	"github.com/pergola-ai/pergola/domain/conversation"
	"github.com/pergola-ai/pergola/domain/workflow"
)

// A turn's first text is timed once; a turn with no text (a client tool
// call) is not timed; tokens go to the bot's and the model's series.
func TestChatHookTurn(t *testing.T) {
	reg := prometheus.NewRegistry()
	h := NewChatHook(reg, NewLabels(DefaultBounds()))
	step := func(s chat.Step) { s.WorkspaceID, s.BotID = 3, 40; h.OnStep(t.Context(), s) }
	step(chat.Step{Kind: chat.StepTurnStart, ChatID: 1, ModelID: "m1"})
	time.Sleep(20 * time.Millisecond)
	step(chat.Step{Kind: chat.StepTextDelta, ChatID: 1, Text: "Hel"})
	step(chat.Step{Kind: chat.StepTextDelta, ChatID: 1, Text: "lo"})
	step(chat.Step{Kind: chat.StepModelEnd, ChatID: 1, ModelID: "m1", Usage: conversation.Usage{InputTokens: 7, OutputTokens: 2}})
	step(chat.Step{Kind: chat.StepTurnEnd, ChatID: 1, Text: "completed"})
	step(chat.Step{Kind: chat.StepTurnStart, ChatID: 2, ModelID: "m1"})
	step(chat.Step{Kind: chat.StepModelEnd, ChatID: 2, ModelID: "m1", Err: errors.New("boom")})
	step(chat.Step{Kind: chat.StepTurnEnd, ChatID: 2, Text: "failed", Err: errors.New("boom")})

	ttft := family(t, reg, "pergola_chat_first_token_seconds")
	if len(ttft) != 1 || ttft[0].Histogram.GetSampleCount() != 1 || labelsOf(ttft[0])["model"] != "m1" {
		t.Fatalf("first token histogram = %v, want one sample for m1", ttft)
	}
	if s := ttft[0].Histogram.GetSampleSum(); s < 0.02 || s > 1 {
		t.Errorf("time to first token = %vs, want about 0.02s", s)
	}
	for _, c := range []struct {
		m    prometheus.Metric
		want float64
	}{
		{h.turns.WithLabelValues("3", "40", "completed"), 1},
		{h.turns.WithLabelValues("3", "40", "failed"), 1},
		{h.botTokens.WithLabelValues("3", "40", "m1", "input"), 7},
		{h.botTokens.WithLabelValues("3", "40", "m1", "output"), 2},
		{h.modelCalls.WithLabelValues("m1", "error"), 1},
	} {
		if got := value(t, c.m); got != c.want {
			t.Errorf("%s = %v, want %v", c.m.Desc(), got, c.want)
		}
	}
	if n := countMap(h); n != 0 {
		t.Errorf("%d turn starts left behind, want none", n)
	}
}

func countMap(h *ChatHook) int {
	n := 0
	h.starts.Range(func(any, any) bool { n++; return true })
	return n
}

func TestWorkflowRuns(t *testing.T) {
	reg := prometheus.NewRegistry()
	w := NewWorkflowRuns(reg, NewLabels(Bounds{Workspaces: 10, Workflows: 1}))
	w.Ended(&workflow.Run{WorkspaceID: 1, WorkflowID: 5, Status: workflow.RunSucceeded, InputTokens: 3})
	w.Ended(&workflow.Run{WorkspaceID: 1, WorkflowID: 6, Status: workflow.RunFailed})
	w.Ended(&workflow.Run{WorkspaceID: 1, WorkflowID: 5, Status: workflow.RunRunning})
	if got := value(t, w.runs.WithLabelValues("1", "5", "success")); got != 1 {
		t.Errorf("success = %v, want 1", got)
	}
	if got := value(t, w.runs.WithLabelValues("1", Other, "fail")); got != 1 {
		t.Errorf("fail of the second workflow = %v, want 1 under other", got)
	}
	if got := value(t, w.tokens.WithLabelValues("1", "5", "input")); got != 3 {
		t.Errorf("input tokens = %v, want 3", got)
	}
	if n := len(family(t, reg, "pergola_workflow_runs_total")); n != 2 {
		t.Errorf("series = %d, want 2 (a running run is not counted)", n)
	}
}
