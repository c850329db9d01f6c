package wftool

import (
	"context"
	"errors"
	"fmt"
	"strconv"

	"github.com/pergola-ai/pergola/domain/bot"
	"github.com/pergola-ai/pergola/domain/errs"
)

// BindWorkflows checks the workflows a bot binds: each must be a workflow
// of the bot's workspace, bound once, at a published version when one is
// named. When publish is set an empty version is pinned to the latest
// published version, and a workflow never published is refused. Errors
// are errs.ErrInvalid naming "workflows[i].workflow_id" (or ".version").
func (s *Service) BindWorkflows(ctx context.Context, workspaceID int64, refs []bot.WorkflowRef, publish bool) ([]bot.WorkflowRef, error) {
	out := make([]bot.WorkflowRef, len(refs))
	seen := map[int64]bool{}
	for i, ref := range refs {
		at := "workflows[" + strconv.Itoa(i) + "]"
		if seen[ref.WorkflowID] {
			return nil, errs.Invalid(at+".workflow_id", "workflow %d is bound twice", ref.WorkflowID)
		}
		seen[ref.WorkflowID] = true
		pinned, err := s.bindOne(ctx, workspaceID, at, ref, publish)
		if err != nil {
			return nil, err
		}
		out[i] = pinned
	}
	return out, nil
}

func (s *Service) bindOne(ctx context.Context, workspaceID int64, at string, ref bot.WorkflowRef, publish bool) (bot.WorkflowRef, error) {
	w, err := s.d.Workflows.GetWorkflow(ctx, ref.WorkflowID)
	if errors.Is(err, errs.ErrNotFound) || err == nil && w.WorkspaceID != workspaceID {
		return ref, errs.Invalid(at+".workflow_id", "workflow %d does not exist in workspace %d", ref.WorkflowID, workspaceID)
	}
	if err != nil {
		return ref, fmt.Errorf("bind workflow %d: %w", ref.WorkflowID, err)
	}
	if ref.Version != "" {
		n, err := strconv.ParseInt(ref.Version, 10, 64)
		if err != nil || n <= 0 {
			return ref, errs.Invalid(at+".version", "must be the number of a published version; got %q", ref.Version)
		}
		if _, err := s.d.Workflows.GetVersion(ctx, w.ID, n); errors.Is(err, errs.ErrNotFound) {
			return ref, errs.Invalid(at+".version", "workflow %d has no version %d", w.ID, n)
		} else if err != nil {
			return ref, fmt.Errorf("bind workflow %d: %w", w.ID, err)
		}
		return ref, nil
	}
	if !publish {
		return ref, nil
	}
	if !w.IsPublished() {
		return ref, errs.Invalid(at+".workflow_id", "workflow %d (%s) is not published; publish it before the bot", w.ID, w.Name)
	}
	ref.Version = strconv.FormatInt(w.PublishedVersion, 10)
	return ref, nil
}
