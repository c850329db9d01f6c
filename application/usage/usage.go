// Package usage answers how much a workspace used: chat turns, workflow
// runs, failures, tokens and latency, aggregated from the stored chats and
// workflow runs by day, bot, model and workspace.
package usage

import (
	"context"
	"fmt"
	"time"

	"github.com/pergola-ai/pergola/domain/errs"
	"github.com/pergola-ai/pergola/domain/identity"
)

// Limits of a usage query.
const (
	// MaxRange is the longest span one query may cover.
	MaxRange = 92 * 24 * time.Hour
	// DefaultRange is the span read when from is not given.
	DefaultRange = 7 * 24 * time.Hour
	// MaxRecords caps the records one query reads; beyond it the answer is
	// marked truncated rather than reading without bound.
	MaxRecords = 200_000
)

// Record is one stored chat turn or workflow run, as usage needs it.
type Record struct {
	Chat         bool // a chat turn; false: a workflow run
	WorkspaceID  int64
	BotID        int64
	Model        string // the bot version's model for a chat; "" for a run
	Failed       bool
	Succeeded    bool
	InputTokens  int64
	OutputTokens int64
	CreatedAt    time.Time
	FinishedAt   *time.Time // nil while unfinished
}

// Query selects the records: a workspace (0: every workspace, for
// administrators), optionally one bot, created in [From, To).
type Query struct {
	WorkspaceID int64
	BotID       int64
	From, To    time.Time
}

// Store reads usage records; *sqlstore.UsageStore implements it.
type Store interface {
	// UsageRecords returns at most limit records matching q, oldest first,
	// and whether more matched.
	UsageRecords(ctx context.Context, q Query, limit int) ([]Record, bool, error)
}

// Authorizer checks workspace membership; *identity.Service implements it.
type Authorizer interface {
	Authorize(ctx context.Context, p identity.Principal, workspaceID int64, min identity.Role) (*identity.Member, error)
}

// Service answers usage queries.
type Service struct {
	store  Store
	access Authorizer
	now    func() time.Time
}

// New returns the usage service.
func New(store Store, access Authorizer) *Service {
	return &Service{store: store, access: access, now: time.Now}
}

// Request is one usage question: what to read and how to group it.
type Request struct {
	Query
	GroupBy []Key
}

// Report is the answer: one row per group, the range read, and whether
// the records were capped at MaxRecords.
type Report struct {
	Rows      []Row
	From, To  time.Time
	Truncated bool
}

// Usage checks the caller may read the workspace (any member may;
// without a workspace only a platform administrator with the admin scope),
// bounds the range, reads the records and groups them.
func (s *Service) Usage(ctx context.Context, p identity.Principal, r Request) (*Report, error) {
	if err := s.authorize(ctx, p, r.WorkspaceID); err != nil {
		return nil, err
	}
	q, err := s.bound(r.Query)
	if err != nil {
		return nil, err
	}
	recs, more, err := s.store.UsageRecords(ctx, q, MaxRecords)
	if err != nil {
		return nil, fmt.Errorf("read usage records: %w", err)
	}
	return &Report{Rows: Aggregate(recs, r.GroupBy), From: q.From, To: q.To, Truncated: more}, nil
}

func (s *Service) authorize(ctx context.Context, p identity.Principal, workspaceID int64) error {
	if workspaceID != 0 {
		_, err := s.access.Authorize(ctx, p, workspaceID, identity.RoleMember)
		return err
	}
	if p.IsAdmin && p.HasScope(identity.ScopeAdmin) {
		return nil
	}
	return errs.Invalid("workspace_id", "is required (only a platform administrator may read every workspace)")
}

// bound applies the default range and refuses inverted or too long ones.
func (s *Service) bound(q Query) (Query, error) {
	if q.To.IsZero() {
		q.To = s.now()
	}
	if q.From.IsZero() {
		q.From = q.To.Add(-DefaultRange)
	}
	if q.From.After(q.To) {
		return q, errs.Invalid("from", "must not be after to (%d), got %d", q.To.Unix(), q.From.Unix())
	}
	if q.To.Sub(q.From) > MaxRange {
		return q, errs.Invalid("to", "the range may cover at most 92 days; got %.1f days", q.To.Sub(q.From).Hours()/24)
	}
	q.From, q.To = q.From.UTC(), q.To.UTC()
	return q, nil
}
