package knowledge

import (
	"context"
	"fmt"

	"github.com/pergola-ai/pergola/domain/errs"
	"github.com/pergola-ai/pergola/domain/identity"
	"github.com/pergola-ai/pergola/domain/knowledge"
)

// View is a knowledge base with its counts, as lists show it.
type View struct {
	knowledge.Base
	Counts knowledge.Counts
}

// ListInput narrows and pages a list of knowledge bases.
type ListInput struct {
	Filter knowledge.ListFilter
	Page   identity.Page // Size 0: 20; at most 100
}

// Get returns a knowledge base with its counts; errs.ErrNotFound when the
// caller cannot reach it.
func (s *Service) Get(ctx context.Context, p identity.Principal, id int64) (*View, error) {
	b, _, err := s.reach(ctx, p, id)
	if err != nil {
		return nil, err
	}
	vs, err := s.withCounts(ctx, b.WorkspaceID, []knowledge.Base{*b})
	if err != nil {
		return nil, err
	}
	return &vs[0], nil
}

// List returns one page of a workspace's knowledge bases, newest first,
// with their counts and the total. It needs the knowledge scope and
// membership (errs.ErrForbidden); a page size over 100 is errs.ErrInvalid.
func (s *Service) List(ctx context.Context, p identity.Principal, workspaceID int64, in ListInput) ([]View, int64, error) {
	if err := s.enter(ctx, p, workspaceID); err != nil {
		return nil, 0, err
	}
	page, err := checkPage(in.Page)
	if err != nil {
		return nil, 0, err
	}
	bases, total, err := s.d.Bases.ListBases(ctx, workspaceID, in.Filter, page)
	if err != nil {
		return nil, 0, fmt.Errorf("list knowledge bases: %w", err)
	}
	vs, err := s.withCounts(ctx, workspaceID, bases)
	return vs, total, err
}

// withCounts adds the counts of each knowledge base.
func (s *Service) withCounts(ctx context.Context, workspaceID int64, bases []knowledge.Base) ([]View, error) {
	ids := make([]int64, len(bases))
	for i, b := range bases {
		ids[i] = b.ID
	}
	counts, err := s.d.Documents.CountBases(ctx, workspaceID, ids)
	if err != nil {
		return nil, fmt.Errorf("count documents: %w", err)
	}
	vs := make([]View, len(bases))
	for i, b := range bases {
		vs[i] = View{Base: b, Counts: counts[b.ID]}
	}
	return vs, nil
}

// checkPage fills a page's defaults and bounds its size.
func checkPage(p identity.Page) (identity.Page, error) {
	if p.Number < 0 {
		return p, errs.Invalid("page", "must be 1 or more")
	}
	if p.Size < 0 || p.Size > 100 {
		return p, errs.Invalid("page_size", "must be between 1 and 100, not %d", p.Size)
	}
	if p.Number == 0 {
		p.Number = 1
	}
	if p.Size == 0 {
		p.Size = 20
	}
	return p, nil
}
