package workflow

import (
	"context"
	"strconv"

	"github.com/pergola-ai/pergola/application/invalidation"
	"github.com/pergola-ai/pergola/domain/workflow"
)

// CachedStore is a workflow store that also keeps, in process, the head
// of each workflow a run of its published version needs (its workspace
// and latest version, not its draft), dropped through the hub when the
// workflow is published again, changed or deleted anywhere. The published
// version itself needs no cache here: the engine keeps it compiled by
// version number, and a version never changes.
type CachedStore struct {
	workflow.Store
	hub   *invalidation.Hub
	heads *invalidation.Cache[workflow.Workflow]
}

// NewCachedStore wraps store with a cache of at most size heads.
func NewCachedStore(store workflow.Store, hub *invalidation.Hub, size int) *CachedStore {
	return &CachedStore{Store: store, hub: hub, heads: invalidation.NewCache[workflow.Workflow](hub, size)}
}

// PublishedHead returns workflow id without its draft (no definition),
// from the cache or the store; errs.ErrNotFound as GetWorkflow.
func (s *CachedStore) PublishedHead(ctx context.Context, id int64) (*workflow.Workflow, error) {
	w, err := s.heads.Get(strconv.FormatInt(id, 10), func() (workflow.Workflow, []string, error) {
		w, err := s.GetWorkflow(ctx, id)
		if err != nil {
			return workflow.Workflow{}, nil, err
		}
		head := *w
		head.Definition = nil
		return head, []string{invalidation.Workflow(id), invalidation.Workspace(w.WorkspaceID)}, nil
	})
	if err != nil {
		return nil, err
	}
	return &w, nil
}

// PublishWorkflow publishes and invalidates the workflow's head.
func (s *CachedStore) PublishWorkflow(ctx context.Context, workspaceID int64, v *workflow.Version) error {
	if err := s.Store.PublishWorkflow(ctx, workspaceID, v); err != nil {
		return err
	}
	s.hub.Invalidate(ctx, invalidation.Workflow(v.WorkflowID))
	return nil
}

// UpdateWorkflow saves the draft and invalidates the workflow's head.
func (s *CachedStore) UpdateWorkflow(ctx context.Context, workspaceID, id int64, fn func(*workflow.Workflow) error) (*workflow.Workflow, error) {
	w, err := s.Store.UpdateWorkflow(ctx, workspaceID, id, fn)
	if err != nil {
		return nil, err
	}
	s.hub.Invalidate(ctx, invalidation.Workflow(id))
	return w, nil
}

// DeleteWorkflow deletes and invalidates the workflow's head.
func (s *CachedStore) DeleteWorkflow(ctx context.Context, workspaceID, id int64) error {
	if err := s.Store.DeleteWorkflow(ctx, workspaceID, id); err != nil {
		return err
	}
	s.hub.Invalidate(ctx, invalidation.Workflow(id))
	return nil
}
