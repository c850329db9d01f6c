package workflow

import (
	"context"
	"errors"
	"fmt"

	"github.com/pergola-ai/pergola/domain/errs"
	"github.com/pergola-ai/pergola/domain/identity"
	"github.com/pergola-ai/pergola/domain/workflow"
)

// Get returns a workflow with its draft. It needs the workflow scope and
// membership of the workflow's workspace; an unreachable workflow is
// errs.ErrNotFound.
func (s *Service) Get(ctx context.Context, p identity.Principal, id int64) (*workflow.Workflow, error) {
	w, _, err := s.reach(ctx, p, id)
	return w, err
}

// List returns one page of the workflows of a workspace, newest first,
// without definitions, and how many there are. It needs the workflow scope
// and membership of the workspace.
func (s *Service) List(ctx context.Context, p identity.Principal, workspaceID int64, f workflow.ListFilter, page identity.Page) ([]workflow.Workflow, int64, error) {
	if err := s.enter(ctx, p, workspaceID); err != nil {
		return nil, 0, err
	}
	list, total, err := s.d.Store.ListWorkflows(ctx, workspaceID, f, page)
	if err != nil {
		return nil, 0, fmt.Errorf("list workflows: %w", err)
	}
	return list, total, nil
}

// ListVersions returns the published versions of a workflow, newest first,
// without definitions; access as for Get.
func (s *Service) ListVersions(ctx context.Context, p identity.Principal, id int64) ([]workflow.Version, error) {
	if _, _, err := s.reach(ctx, p, id); err != nil {
		return nil, err
	}
	vs, err := s.d.Store.ListVersions(ctx, id)
	if err != nil {
		return nil, fmt.Errorf("list versions of workflow %d: %w", id, err)
	}
	return vs, nil
}

// GetVersion returns one published version with its definition, or
// errs.ErrNotFound; access as for Get.
func (s *Service) GetVersion(ctx context.Context, p identity.Principal, id, number int64) (*workflow.Version, error) {
	if _, _, err := s.reach(ctx, p, id); err != nil {
		return nil, err
	}
	v, err := s.d.Store.GetVersion(ctx, id, number)
	if err != nil && !errors.Is(err, errs.ErrNotFound) {
		return nil, fmt.Errorf("get version %d of workflow %d: %w", number, id, err)
	}
	return v, err
}

// publishedHeads is a store that keeps the heads of workflows in process
// (CachedStore).
type publishedHeads interface {
	PublishedHead(ctx context.Context, id int64) (*workflow.Workflow, error)
}

// reachForRun is reach for a run: a run of the published version takes
// the workflow's head from the store's cache when it has one (the draft
// is not needed); a draft run reads the workflow.
func (s *Service) reachForRun(ctx context.Context, p identity.Principal, id int64, draft bool) (*workflow.Workflow, error) {
	heads, ok := s.d.Store.(publishedHeads)
	if draft || !ok {
		w, _, err := s.reach(ctx, p, id)
		return w, err
	}
	if err := p.RequireScope(identity.ScopeWorkflow); err != nil {
		return nil, err
	}
	w, err := heads.PublishedHead(ctx, id)
	if errors.Is(err, errs.ErrNotFound) {
		return nil, workflow.NotFound(id)
	}
	if err != nil {
		return nil, fmt.Errorf("load workflow %d: %w", id, err)
	}
	_, err = s.d.Access.Authorize(ctx, p, w.WorkspaceID, identity.RoleMember)
	if errors.Is(err, errs.ErrForbidden) {
		return nil, workflow.NotFound(id)
	}
	if err != nil {
		return nil, fmt.Errorf("load workflow %d: %w", id, err)
	}
	return w, nil
}
