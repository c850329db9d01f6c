package workflow

import (
	"context"
	"fmt"
	"unicode/utf8"

	"github.com/pergola-ai/pergola/domain/errs"
	"github.com/pergola-ai/pergola/domain/identity"
	"github.com/pergola-ai/pergola/domain/workflow"
	wf "github.com/pergola-ai/pergola/workflow"
)

// Publish stores the current draft as the workflow's next immutable
// version, the one the API runs. The draft is validated and compiled
// again first (a sub-workflow it pins may have gone). description notes
// what changed (optional). Access as for Get; a draft that no longer
// passes is errs.ErrInvalid.
func (s *Service) Publish(ctx context.Context, p identity.Principal, id int64, description string) (*workflow.Version, error) {
	if utf8.RuneCountInString(description) > workflow.MaxDescriptionLen {
		return nil, errs.Invalid("description", "must be at most %d characters", workflow.MaxDescriptionLen)
	}
	w, _, err := s.reach(ctx, p, id)
	if err != nil {
		return nil, err
	}
	def, err := wf.Parse(w.Definition)
	if err != nil {
		return nil, fmt.Errorf("draft of workflow %d: %w", id, err)
	}
	opts := wf.CompileOptions{WorkspaceID: w.WorkspaceID, WorkflowID: id}
	if _, err := s.d.Engine.Compile(ctx, wf.DraftKey(id, w.DraftRevision), def, opts); err != nil {
		return nil, err
	}
	if description == "" {
		description = w.Description
	}
	v := &workflow.Version{WorkflowID: id, Name: w.Name, Description: description, Definition: w.Definition, PublisherID: p.UserID}
	if err := s.d.Store.PublishWorkflow(ctx, w.WorkspaceID, v); err != nil {
		return nil, fmt.Errorf("publish workflow %d: %w", id, err)
	}
	return v, nil
}
