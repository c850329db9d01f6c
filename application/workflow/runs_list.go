package workflow

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/pergola-ai/pergola/domain/identity"
	"github.com/pergola-ai/pergola/domain/workflow"
)

// RunFilter narrows a list of a workflow's runs; zero fields do not
// filter. From is inclusive and To exclusive, on the creation time.
type RunFilter struct {
	Status workflow.RunStatus
	Mode   workflow.RunMode
	UserID string
	From   time.Time
	To     time.Time
}

// RunLister lists the runs of a workflow, newest first, with the number of
// runs that match the filter. A run store that can list implements it;
// it is kept out of workflow.RunStore so that the stores and fakes that
// only run workflows need not.
type RunLister interface {
	ListRuns(ctx context.Context, workflowID int64, f RunFilter, p identity.Page) ([]workflow.Run, int64, error)
}

// errNoRunList is returned when the run store cannot list runs.
var errNoRunList = errors.New("workflow: the run store cannot list runs")

// ListRuns returns a page of a workflow's runs, newest first, and how many
// match f. Access as for Get: a workflow of a workspace the caller is not
// in is errs.ErrNotFound.
func (s *Service) ListRuns(ctx context.Context, p identity.Principal, workflowID int64, f RunFilter, page identity.Page) ([]workflow.Run, int64, error) {
	if _, _, err := s.reach(ctx, p, workflowID); err != nil {
		return nil, 0, err
	}
	l, ok := s.d.Runs.(RunLister)
	if !ok {
		return nil, 0, errNoRunList
	}
	runs, total, err := l.ListRuns(ctx, workflowID, f, page)
	if err != nil {
		return nil, 0, fmt.Errorf("list runs of workflow %d: %w", workflowID, err)
	}
	return runs, total, nil
}
