package workflow

import (
	"context"
	"errors"
	"fmt"
	"strconv"

	"github.com/pergola-ai/pergola/domain/errs"
	"github.com/pergola-ai/pergola/domain/identity"
	"github.com/pergola-ai/pergola/domain/workflow"
)

// RunHistory returns a run of a workflow and the records of its nodes, in
// the order they finished. Access as for Get; a run of another workflow
// is errs.ErrNotFound.
func (s *Service) RunHistory(ctx context.Context, p identity.Principal, workflowID, runID int64) (*workflow.Run, []workflow.NodeRun, error) {
	if _, _, err := s.reach(ctx, p, workflowID); err != nil {
		return nil, nil, err
	}
	run, err := s.d.Runs.GetRun(ctx, runID)
	if err == nil && run.WorkflowID != workflowID {
		err = errs.NotFound("run", strconv.FormatInt(runID, 10))
	}
	if err != nil {
		if errors.Is(err, errs.ErrNotFound) {
			return nil, nil, errs.NotFound("run", strconv.FormatInt(runID, 10))
		}
		return nil, nil, fmt.Errorf("run %d: %w", runID, err)
	}
	nodes, err := s.d.Runs.ListNodeRuns(ctx, runID)
	if err != nil {
		return nil, nil, fmt.Errorf("nodes of run %d: %w", runID, err)
	}
	return run, nodes, nil
}
