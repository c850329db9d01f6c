// Package table holds the use cases of tables: each bot's own SQL tables,
// the SQL tool per table, and table and row management.
//
// Every use case that takes a caller checks the token's table scope and
// the caller's membership of the table's workspace. A table the caller
// cannot reach answers exactly like an unknown one ("table 42 not
// found"), so ids of other workspaces do not leak.
package table

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"strconv"

	"github.com/pergola-ai/pergola/domain/errs"
	"github.com/pergola-ai/pergola/domain/identity"
	"github.com/pergola-ai/pergola/domain/table"
)

// Authorizer checks that a caller may act in a workspace with at least a
// role; *identity.Service implements it. It fails with errs.ErrForbidden.
type Authorizer interface {
	Authorize(ctx context.Context, p identity.Principal, workspaceID int64, min identity.Role) (*identity.Member, error)
}

// Schema creates, changes and drops the physical tables of a table.
type Schema interface {
	CreateTable(ctx context.Context, t *table.Table) error
	AddFields(ctx context.Context, t *table.Table, fields []table.Field) error
	DropFields(ctx context.Context, t *table.Table, fields []table.Field) error
	DropTable(ctx context.Context, id int64) error
	// TableIDs lists the tables that have physical tables.
	TableIDs(ctx context.Context) ([]int64, error)
}

// Runner runs the SQL a model writes on one table. Statements it refuses
// and values the database rejects fail with errs.ErrInvalid, with a
// message for the model.
type Runner interface {
	Run(ctx context.Context, t *table.Table, sc table.Scope, sql string) (*table.Result, error)
}

// RowStore reads and writes rows for builders.
type RowStore interface {
	ListRows(ctx context.Context, t *table.Table, q table.RowQuery) ([]table.Row, int64, error)
	InsertRows(ctx context.Context, t *table.Table, d table.Data, rows []table.Row) ([]int64, error)
	UpdateRow(ctx context.Context, t *table.Table, d table.Data, id int64, values map[string]any, userID *string) error
	DeleteRows(ctx context.Context, t *table.Table, d table.Data, ids []int64) (int64, error)
	Sizes(ctx context.Context, ids []int64) (map[int64]table.Size, error)
}

// Rows is the storage of rows, apart from the platform's data;
// *tablestore.Store implements it.
type Rows interface {
	Schema
	Runner
	RowStore
}

// Deps is what the service needs.
type Deps struct {
	Tables table.Store
	// Rows is nil when the rows' storage is not configured; every use
	// case then fails with errs.ErrUnavailable saying Unavailable.
	Rows        Rows
	Unavailable string
	Access      Authorizer
	Log         *slog.Logger
}

// Service runs the table use cases.
type Service struct {
	d Deps
}

// New returns the service.
func New(d Deps) *Service {
	if d.Log == nil {
		d.Log = slog.New(slog.DiscardHandler)
	}
	if d.Unavailable == "" {
		d.Unavailable = "tables are not available: the storage of their rows is not configured"
	}
	return &Service{d: d}
}

func tableNotFound(id int64) error { return errs.NotFound("table", strconv.FormatInt(id, 10)) }

// available fails with errs.ErrUnavailable when rows cannot be stored.
func (s *Service) available() error {
	if s.d.Rows == nil {
		return errs.New(errs.ErrUnavailable, "%s", s.d.Unavailable)
	}
	return nil
}

// reach loads a table for a caller whose token has the table scope and
// who is a member of its workspace, and returns the membership with it.
// A table the caller may not reach is reported as not found.
func (s *Service) reach(ctx context.Context, p identity.Principal, id int64) (*table.Table, *identity.Member, error) {
	if err := p.RequireScope(identity.ScopeTable); err != nil {
		return nil, nil, err
	}
	if err := s.available(); err != nil {
		return nil, nil, err
	}
	t, err := s.d.Tables.GetTable(ctx, id)
	if errors.Is(err, errs.ErrNotFound) {
		return nil, nil, tableNotFound(id)
	}
	if err != nil {
		return nil, nil, fmt.Errorf("load table %d: %w", id, err)
	}
	m, err := s.d.Access.Authorize(ctx, p, t.WorkspaceID, identity.RoleMember)
	if errors.Is(err, errs.ErrForbidden) {
		return nil, nil, tableNotFound(id)
	}
	if err != nil {
		return nil, nil, fmt.Errorf("load table %d: %w", id, err)
	}
	return t, m, nil
}

// enter checks a caller acting in a workspace: the table scope and
// membership (errs.ErrForbidden otherwise).
func (s *Service) enter(ctx context.Context, p identity.Principal, workspaceID int64) error {
	if err := p.RequireScope(identity.ScopeTable); err != nil {
		return err
	}
	if workspaceID <= 0 {
		return errs.Invalid("workspace_id", "is required")
	}
	if err := s.available(); err != nil {
		return err
	}
	_, err := s.d.Access.Authorize(ctx, p, workspaceID, identity.RoleMember)
	return err
}
