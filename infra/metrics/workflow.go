package metrics

import (
	"github.com/prometheus/client_golang/prometheus"

	"github.com/pergola-ai/pergola/domain/workflow"
)

// WorkflowRuns counts the runs of workflows as they end (or stop to ask),
// by workspace, workflow and outcome; workspace and workflow labels are
// bounded by Labels.
type WorkflowRuns struct {
	labels *Labels
	runs   *prometheus.CounterVec
	tokens *prometheus.CounterVec
}

// NewWorkflowRuns registers the workflow run metrics on reg.
func NewWorkflowRuns(reg prometheus.Registerer, l *Labels) *WorkflowRuns {
	w := &WorkflowRuns{
		labels: l,
		runs: counter("pergola_workflow_runs_total",
			"Workflow runs that ended by workspace, workflow and outcome (success, fail, interrupted, cancelled).",
			"workspace", "workflow", "outcome"),
		tokens: counter("pergola_workflow_tokens_total", "Tokens of workflow runs by workspace, workflow and kind (input, output).",
			"workspace", "workflow", "kind"),
	}
	reg.MustRegister(w.runs, w.tokens)
	return w
}

// Ended records a run that reached r.Status: a final one, or interrupted
// (a question waits for its answer; the resumed run counts again).
func (w *WorkflowRuns) Ended(r *workflow.Run) {
	if r.Status == workflow.RunRunning || r.Status == "" {
		return
	}
	ws, wf := w.labels.workspaces.ID(r.WorkspaceID), w.labels.workflows.ID(r.WorkflowID)
	w.runs.WithLabelValues(ws, wf, string(r.Status)).Inc()
	w.tokens.WithLabelValues(ws, wf, "input").Add(float64(r.InputTokens))
	w.tokens.WithLabelValues(ws, wf, "output").Add(float64(r.OutputTokens))
}
