package workflow

import (
	"context"
	"fmt"

	"github.com/pergola-ai/pergola/domain/errs"
	"github.com/pergola-ai/pergola/domain/identity"
	"github.com/pergola-ai/pergola/domain/workflow"
	wf "github.com/pergola-ai/pergola/workflow"
)

// starter is the definition of a new workflow without one: a start node
// with one parameter and an end node returning it.
const starter = `{"nodes":[{"id":"start","type":"start","title":"Start","outputs":[{"name":"input","type":"string"}]},` +
	`{"id":"end","type":"end","title":"End","inputs":{"output":{"ref":{"node":"start","path":"input"}}}}],` +
	`"edges":[{"from":"start","to":"end"}]}`

// prepareDefinition parses a definition (JSON or YAML), validates it in
// the workspace (sub-workflows included) and returns it as the compact
// JSON that is stored. An empty one becomes the starter workflow. With
// keepInvalid a definition that reads but does not validate is returned
// too, as Coze keeps drafts that do not validate yet (runs and publishing
// validate it again and refuse it).
func (s *Service) prepareDefinition(ctx context.Context, workspaceID, workflowID int64, raw []byte, keepInvalid bool) ([]byte, error) {
	if len(raw) == 0 {
		raw = []byte(starter)
	}
	if len(raw) > workflow.MaxDefinitionSize {
		return nil, errs.Invalid("definition", "is %d bytes; at most %d are allowed", len(raw), workflow.MaxDefinitionSize)
	}
	def, err := wf.Parse(raw)
	if err != nil {
		return nil, err
	}
	opts := wf.CompileOptions{WorkspaceID: workspaceID, WorkflowID: workflowID}
	if err := s.d.Engine.Validate(ctx, def, opts); err != nil && !(keepInvalid && wf.Problems(err) != nil) {
		return nil, err
	}
	return def.Marshal()
}

// DraftProblems validates the stored draft of a workflow and returns its
// problems, none when it is valid (a draft kept with KeepInvalid may have
// some). Access as for Get.
func (s *Service) DraftProblems(ctx context.Context, p identity.Principal, id int64) ([]*errs.FieldError, error) {
	w, _, err := s.reach(ctx, p, id)
	if err != nil {
		return nil, err
	}
	def, err := wf.Parse(w.Definition)
	if err == nil {
		err = s.d.Engine.Validate(ctx, def, wf.CompileOptions{WorkspaceID: w.WorkspaceID, WorkflowID: id})
	}
	if problems := wf.Problems(err); problems != nil {
		return problems, nil
	}
	return nil, err
}

// CreateInput is a new workflow.
type CreateInput struct {
	WorkspaceID int64
	Name        string
	Description string
	Definition  []byte // JSON or YAML; empty: the starter workflow
	// KeepInvalid stores a definition that does not validate (see
	// DraftProblems); it cannot run or be published until it does.
	KeepInvalid bool
}

// Create makes a workflow in a workspace; the caller becomes its creator.
// It needs the workflow scope and membership of the workspace
// (errs.ErrForbidden otherwise). A wrong name or an invalid definition
// fails with errs.ErrInvalid; for a definition it is a
// *wf.ValidationError listing every problem.
func (s *Service) Create(ctx context.Context, p identity.Principal, in CreateInput) (*workflow.Workflow, error) {
	if err := s.enter(ctx, p, in.WorkspaceID); err != nil {
		return nil, err
	}
	if err := workflow.ValidateMeta(in.Name, in.Description); err != nil {
		return nil, err
	}
	def, err := s.prepareDefinition(ctx, in.WorkspaceID, 0, in.Definition, in.KeepInvalid)
	if err != nil {
		return nil, err
	}
	w := &workflow.Workflow{WorkspaceID: in.WorkspaceID, CreatorID: p.UserID, Name: in.Name,
		Description: in.Description, Definition: def}
	if err := s.d.Store.CreateWorkflow(ctx, w); err != nil {
		return nil, fmt.Errorf("create workflow: %w", err)
	}
	return w, nil
}

// UpdateInput changes a draft; nil fields are kept.
type UpdateInput struct {
	Name        *string
	Description *string
	Definition  []byte
	KeepInvalid bool // as in CreateInput
}

// Update changes the draft of a workflow: its name, description or
// definition, checked as in Create. Access as for Get.
func (s *Service) Update(ctx context.Context, p identity.Principal, id int64, in UpdateInput) (*workflow.Workflow, error) {
	w, _, err := s.reach(ctx, p, id)
	if err != nil {
		return nil, err
	}
	name, desc := w.Name, w.Description
	if in.Name != nil {
		name = *in.Name
	}
	if in.Description != nil {
		desc = *in.Description
	}
	if err := workflow.ValidateMeta(name, desc); err != nil {
		return nil, err
	}
	var def []byte
	if in.Definition != nil {
		if def, err = s.prepareDefinition(ctx, w.WorkspaceID, id, in.Definition, in.KeepInvalid); err != nil {
			return nil, err
		}
	}
	updated, err := s.d.Store.UpdateWorkflow(ctx, w.WorkspaceID, id, func(x *workflow.Workflow) error {
		x.Name, x.Description = name, desc
		if def != nil {
			x.Definition = def
		}
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("update workflow %d: %w", id, err)
	}
	return updated, nil
}

// Delete removes a workflow with its versions and runs. It needs the
// workflow's creator or an admin of its workspace (errs.ErrForbidden);
// access otherwise as for Get.
func (s *Service) Delete(ctx context.Context, p identity.Principal, id int64) error {
	w, m, err := s.reach(ctx, p, id)
	if err != nil {
		return err
	}
	if w.CreatorID != p.UserID && !m.Role.AtLeast(identity.RoleAdmin) {
		return errs.Forbidden("only the workflow's creator or an admin of workspace %d may delete workflow %d", w.WorkspaceID, id)
	}
	if err := s.d.Store.DeleteWorkflow(ctx, w.WorkspaceID, id); err != nil {
		return fmt.Errorf("delete workflow %d: %w", id, err)
	}
	return nil
}

// Validate checks a definition without storing it and returns its
// problems, none when it is valid. With a workspace (which the caller
// must be a member of) the sub-workflows it runs are checked too. A
// definition that cannot be read at all is one problem on "definition".
func (s *Service) Validate(ctx context.Context, p identity.Principal, workspaceID int64, raw []byte) ([]*errs.FieldError, error) {
	if err := p.RequireScope(identity.ScopeWorkflow); err != nil {
		return nil, err
	}
	if workspaceID > 0 {
		if err := s.enter(ctx, p, workspaceID); err != nil {
			return nil, err
		}
	}
	if len(raw) == 0 {
		return nil, errs.Invalid("definition", "is required")
	}
	def, err := wf.Parse(raw)
	if err == nil {
		err = s.d.Engine.Validate(ctx, def, wf.CompileOptions{WorkspaceID: workspaceID})
	}
	if problems := wf.Problems(err); problems != nil {
		return problems, nil
	}
	return nil, err
}
