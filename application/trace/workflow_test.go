package trace

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/pergola-ai/pergola/application/chat"
	appwf "github.com/pergola-ai/pergola/application/workflow"
	"github.com/pergola-ai/pergola/domain/bot"
	"github.com/pergola-ai/pergola/domain/workflow"
	wf "github.com/pergola-ai/pergola/workflow"
)

// TestWorkflowRunTree: node spans nest under their loop, a retried node
// says so, an interrupt adds what it asked, and a run called from a chat's
// tool nests under that tool's span.
func TestWorkflowRunTree(t *testing.T) {
	t0 := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	at := func(ms int) time.Time { return t0.Add(time.Duration(ms) * time.Millisecond) }
	nodes := []wf.NodeRecord{
		{NodeID: "start", Type: "start", Status: wf.NodeSucceeded, StartedAt: at(0), Duration: time.Millisecond},
		{NodeID: "fetch", Type: "http", Parent: "loop1", Index: 0, Status: wf.NodeSucceeded, StartedAt: at(2), Duration: 3 * time.Millisecond, Attempts: 3},
		{NodeID: "fetch", Type: "http", Parent: "loop1", Index: 1, Status: wf.NodeFailed, Error: "503", StartedAt: at(6), Duration: time.Millisecond},
		{NodeID: "loop1", Type: "loop", Status: wf.NodeSucceeded, StartedAt: at(1), Duration: 9 * time.Millisecond,
			Inputs: map[string]any{"items": []any{1, 2}}},
		{NodeID: "ask", Type: "question", Status: wf.NodeInterrupted, StartedAt: at(11)},
	}
	out := &appwf.Outcome{Run: &workflow.Run{ID: 77, WorkflowID: 5, WorkspaceID: 3, Mode: "bot", Status: workflow.RunInterrupted},
		Result:    &wf.RunResult{Nodes: nodes},
		Interrupt: &wf.Interrupt{NodeID: "ask", Type: "question", Question: "Which city?"}}

	rec := &memRecorder{}
	chats := NewChats(rec, nil)
	ctx := bot.WithRunScope(context.Background(), bot.RunScope{WorkspaceID: 3, ChatID: 9})
	chats.OnStep(ctx, chatStep("turn_start", ""))
	chats.OnStep(ctx, chatStep("tool_call", "c1"))
	NewWorkflows(rec, chats, nil).RunEnded(ctx, out, t0, true)
	chats.OnStep(ctx, chatStep("tool_result", "c1"))
	chats.OnStep(ctx, chatStep("turn_end", ""))

	if len(rec.traces) != 2 || rec.traces[0].ID != 77 || rec.traces[0].WorkspaceID != 3 || rec.traces[0].Kind != KindWorkflow {
		t.Fatalf("traces = %+v", rec.traces)
	}
	root := rec.traces[0].Root
	if got := names(root); got != "node start,node loop1,node ask,interrupt ask" {
		t.Fatalf("run children = %s", got)
	}
	loop := root.Children[1]
	if got := names(loop); got != "node fetch,node fetch" || loop.Attributes[AttrNodeInputs] != `{"items":[1,2]}` {
		t.Fatalf("loop = %s %v", got, loop.Attributes)
	}
	retried, failed := loop.Children[0], loop.Children[1]
	if retried.Attributes[AttrRetries] != 2 || retried.DurationMS != 3 || failed.Status != StatusError || failed.Error != "503" {
		t.Fatalf("fetch spans = %+v / %+v", retried, failed)
	}
	asked := root.Children[3]
	if !strings.Contains(asked.Attributes[AttrInterrupt].(string), "Which city?") || root.Attributes[AttrResumed] != true ||
		root.Attributes[AttrOutcome] != "interrupted" {
		t.Fatalf("interrupt %v, root %v", asked.Attributes, root.Attributes)
	}
	tool := rec.traces[1].Root.Children[0]
	if len(tool.Children) != 1 || tool.Children[0] != root {
		t.Fatalf("the run is not under the chat's tool span: %+v", tool.Children)
	}
}

func chatStep(kind, callID string) chat.Step {
	return chat.Step{Kind: chat.StepKind(kind), ChatID: 9, ToolName: "wf", ToolCallID: callID}
}

func names(sp *Span) string {
	var out []string
	for _, c := range sp.Children {
		out = append(out, c.Name)
	}
	return strings.Join(out, ",")
}
