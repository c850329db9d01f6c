package workflow

import (
	"context"
	"fmt"

	"github.com/pergola-ai/pergola/domain/workflow"
	wf "github.com/pergola-ai/pergola/workflow"
)

// Loader gives the engine the pinned versions sub-workflow nodes run,
// from the store, within the caller's workspace.
type Loader struct{ store workflow.Store }

var (
	_ wf.WorkflowLoader    = Loader{}
	_ wf.WorkflowDescriber = Loader{}
)

// NewLoader returns a loader over store.
func NewLoader(store workflow.Store) Loader { return Loader{store: store} }

// LoadWorkflow returns version of workflow id of the workspace, or
// errs.ErrNotFound (a workflow of another workspace is unknown).
func (l Loader) LoadWorkflow(ctx context.Context, workspaceID, id, version int64) (*wf.Definition, error) {
	w, err := l.store.GetWorkflow(ctx, id)
	if err != nil {
		return nil, err
	}
	if w.WorkspaceID != workspaceID {
		return nil, workflow.NotFound(id)
	}
	v, err := l.store.GetVersion(ctx, id, version)
	if err != nil {
		return nil, err
	}
	def, err := wf.Parse(v.Definition)
	if err != nil {
		return nil, fmt.Errorf("workflow %d version %d: %w", id, version, err)
	}
	return def, nil
}

// DescribeWorkflow returns the name and description of workflow id of the
// workspace, for the tools of llm nodes.
func (l Loader) DescribeWorkflow(ctx context.Context, workspaceID, id int64) (string, string, error) {
	w, err := l.store.GetWorkflow(ctx, id)
	if err != nil {
		return "", "", err
	}
	if w.WorkspaceID != workspaceID {
		return "", "", workflow.NotFound(id)
	}
	return w.Name, w.Description, nil
}
