package trace

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"time"

	"github.com/pergola-ai/pergola/domain/errs"
	"github.com/pergola-ai/pergola/domain/identity"
)

// Authorizer checks that a caller may act in a workspace with at least a
// role; *identity.Service implements it. It fails with errs.ErrForbidden.
type Authorizer interface {
	Authorize(ctx context.Context, p identity.Principal, workspaceID int64, min identity.Role) (*identity.Member, error)
}

// Service reads stored traces for the builders of their workspace.
type Service struct {
	store  Store
	access Authorizer
}

// NewService returns the trace reader.
func NewService(store Store, access Authorizer) *Service {
	return &Service{store: store, access: access}
}

// Run is one stored run of a trace: a turn or its resumption, a workflow
// run or its resumption.
type Run struct {
	Kind      string
	CreatedAt time.Time
	Root      *Span
}

// View is a trace as the builder reads it.
type View struct {
	ID          int64
	WorkspaceID int64
	Kind        string
	Runs        []Run
}

// Get returns trace id (a chat id or an execute id) to a member of its
// workspace; an unknown trace, or one of a workspace the caller is not a
// member of, is errs.ErrNotFound; a token without the scope of what the
// trace shows (chat or workflow: scopeOf) gets errs.ErrForbidden.
func (s *Service) Get(ctx context.Context, p identity.Principal, id int64) (*View, error) {
	recs, err := s.store.TraceRecords(ctx, id)
	if err != nil {
		return nil, fmt.Errorf("read trace %d: %w", id, err)
	}
	if len(recs) == 0 {
		return nil, notFound(id)
	}
	ws := recs[0].WorkspaceID
	if _, err := s.access.Authorize(ctx, p, ws, identity.RoleMember); errors.Is(err, errs.ErrForbidden) {
		return nil, notFound(id)
	} else if err != nil {
		return nil, fmt.Errorf("read trace %d: %w", id, err)
	}
	if err := p.RequireScope(scopeOf(recs[0].Kind)); err != nil {
		return nil, err
	}
	v := &View{ID: id, WorkspaceID: ws, Kind: recs[0].Kind}
	for _, r := range recs {
		if r.WorkspaceID != ws {
			continue // ids are unique; never show another workspace's record
		}
		var root Span
		if err := json.Unmarshal(r.Tree, &root); err != nil {
			return nil, fmt.Errorf("read trace %d: %w", id, err)
		}
		v.Runs = append(v.Runs, Run{Kind: r.Kind, CreatedAt: r.CreatedAt, Root: &root})
	}
	return v, nil
}

// scopeOf is the token scope a trace of kind needs: a chat's shows the
// end user's messages and the bot's prompt (chat), a workflow run's its
// inputs and outputs (workflow).
func scopeOf(kind string) string {
	if kind == KindWorkflow {
		return identity.ScopeWorkflow
	}
	return identity.ScopeChat
}

func notFound(id int64) error {
	return errs.New(errs.ErrNotFound,
		"trace %s not found: give the id of a chat or of a workflow run (execute_id) of your workspace; traces are written a moment after the run ends",
		strconv.FormatInt(id, 10))
}
