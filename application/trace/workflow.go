package trace

import (
	"context"
	"encoding/json"
	"strconv"
	"time"

	"github.com/cloudwego/eino/compose"

	appwf "github.com/pergola-ai/pergola/application/workflow"
	"github.com/pergola-ai/pergola/domain/bot"
	wf "github.com/pergola-ai/pergola/workflow"
)

// Workflows builds the trace of every workflow run from its outcome (it is
// an appwf.RunTracer): the run, one span per node record (nested under
// the loop, batch or sub-workflow node they ran in), and the question of
// an interrupt. A run called as a bot's tool is also nested under that
// tool's span in the chat's trace.
type Workflows struct {
	rec    Recorder
	chats  *Chats // nil: no nesting
	models Models // nil: model ids only
	now    func() time.Time
}

// NewWorkflows returns the tracer of workflow runs; chats and models may
// be nil.
func NewWorkflows(rec Recorder, chats *Chats, models Models) *Workflows {
	return &Workflows{rec: rec, chats: chats, models: models, now: time.Now}
}

var _ appwf.RunTracer = (*Workflows)(nil)

// RunEnded records the run's trace.
func (w *Workflows) RunEnded(ctx context.Context, out *appwf.Outcome, start time.Time, resumed bool) {
	run := out.Run
	root := newSpan("workflow "+strconv.FormatInt(run.WorkflowID, 10), KindWorkflow, start)
	root.Attributes[AttrWorkflowID] = strconv.FormatInt(run.WorkflowID, 10)
	root.Attributes[AttrExecuteID] = strconv.FormatInt(run.ID, 10)
	root.Attributes[AttrRunMode] = string(run.Mode)
	root.Attributes[AttrOutcome] = string(run.Status)
	root.Attributes[AttrInputTokens] = run.InputTokens
	root.Attributes[AttrOutputTokens] = run.OutputTokens
	if resumed {
		root.Attributes[AttrResumed] = true
	}
	var nodes []wf.NodeRecord
	if out.Result != nil {
		nodes = out.Result.Nodes
	}
	dropped := addNodes(root, nodes, w.calls(ctx))
	if out.Interrupt != nil {
		root.Children = append(root.Children, interruptSpan(out.Interrupt, w.now()))
	}
	if dropped > 0 {
		root.Attributes[AttrDropped] = dropped
	}
	failure := ""
	if out.Failure != nil {
		failure = out.Failure.Error()
	}
	root.finish(w.now(), failure)
	w.rec.Record(&Trace{ID: run.ID, WorkspaceID: run.WorkspaceID, Kind: KindWorkflow, Root: root})
	if sc, ok := bot.RunScopeFrom(ctx); ok && sc.ChatID != 0 && w.chats != nil {
		w.chats.Attach(sc.ChatID, compose.GetToolCallID(ctx), root)
	}
}

// addNodes puts a span per record under root, or under the span of the
// composite node it ran in (Parent), and returns how many it left out.
func addNodes(root *Span, nodes []wf.NodeRecord, calls *modelCalls) int {
	if len(nodes) > MaxSpans-2 {
		dropped := len(nodes) - (MaxSpans - 2)
		addNodes(root, nodes[:MaxSpans-2], calls)
		return dropped
	}
	spans := make([]*Span, len(nodes))
	byPath := map[string]*Span{}
	for i := range nodes {
		spans[i] = nodeSpan(&nodes[i], root.Start)
		calls.set(spans[i], nodes[i].Model)
		byPath[path(nodes[i].Parent, nodes[i].NodeID)] = spans[i]
	}
	for i, rec := range nodes {
		parent := byPath[rec.Parent]
		if parent == nil || parent == spans[i] {
			parent = root
		}
		parent.Children = append(parent.Children, spans[i])
	}
	return 0
}

func path(parent, id string) string {
	if parent == "" {
		return id
	}
	return parent + "/" + id
}

func nodeSpan(rec *wf.NodeRecord, runStart time.Time) *Span {
	start := rec.StartedAt
	if start.IsZero() {
		start = runStart
	}
	sp := newSpan("node "+rec.NodeID, KindNode, start)
	sp.Attributes[AttrNodeID] = rec.NodeID
	sp.Attributes[AttrNodeType] = rec.Type
	sp.Attributes[AttrNodeStatus] = string(rec.Status)
	if rec.Parent != "" {
		sp.Attributes[AttrNodeParent] = rec.Parent
		sp.Attributes[AttrNodeIndex] = rec.Index
	}
	if rec.Title != "" {
		sp.Attributes["pergola.node.title"] = rec.Title
	}
	if rec.Attempts > 1 {
		sp.Attributes[AttrAttempts] = rec.Attempts
		sp.Attributes[AttrRetries] = rec.Attempts - 1
	}
	if rec.Usage.Total() > 0 {
		sp.Attributes[AttrInputTokens] = rec.Usage.InputTokens
		sp.Attributes[AttrOutputTokens] = rec.Usage.OutputTokens
	}
	sp.setText(AttrNodeInputs, encodeMap(rec.Inputs))
	sp.setText(AttrNodeOutputs, encodeMap(rec.Outputs))
	errMsg := rec.Error
	if rec.Status == wf.NodeFailed && errMsg == "" {
		errMsg = "failed"
	}
	sp.finish(start.Add(rec.Duration), errMsg)
	return sp
}

func interruptSpan(in *wf.Interrupt, now time.Time) *Span {
	sp := newSpan("interrupt "+in.NodeID, "interrupt", now)
	sp.Attributes[AttrNodeID] = in.NodeID
	sp.Attributes[AttrNodeType] = in.Type
	b, _ := json.Marshal(in)
	sp.setText(AttrInterrupt, string(b))
	sp.finish(now, "")
	return sp
}

func encodeMap(m map[string]any) string {
	if m == nil {
		return ""
	}
	b, err := json.Marshal(m)
	if err != nil {
		return ""
	}
	return string(b)
}
