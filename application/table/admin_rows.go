package table

import (
	"context"
	"errors"
	"fmt"
	"strconv"

	"github.com/pergola-ai/pergola/domain/errs"
	"github.com/pergola-ai/pergola/domain/identity"
	"github.com/pergola-ai/pergola/domain/table"
)

// AdminListRows is ListRows for a platform administrator with the admin
// scope, on any workspace's table: no membership is needed. The read is
// written to the audit log (action table.rows.read).
func (s *Service) AdminListRows(ctx context.Context, p identity.Principal, id int64, q RowsQuery) (*table.Table, []table.Row, int64, error) {
	a, err := s.asAdmin(ctx, p, id)
	if err != nil {
		return nil, nil, 0, err
	}
	t, rows, total, err := a.view.ListRows(ctx, a.as, id, q)
	if err != nil {
		return nil, nil, 0, err
	}
	s.audit(ctx, p, "table.rows.read", t, q.Data, "rows", len(rows), "total", total)
	return t, rows, total, nil
}

// AdminInsertRows is InsertRows for a platform administrator on any
// workspace's table, audited (action table.rows.insert, with the new ids).
func (s *Service) AdminInsertRows(ctx context.Context, p identity.Principal, id int64, d table.Data, in []NewRow) ([]int64, error) {
	a, err := s.asAdmin(ctx, p, id)
	if err != nil {
		return nil, err
	}
	ids, err := a.view.InsertRows(ctx, a.as, id, d, in)
	if err != nil {
		return nil, err
	}
	s.audit(ctx, p, "table.rows.insert", a.t, d, "row_ids", ids)
	return ids, nil
}

// AdminUpdateRow is UpdateRow for a platform administrator on any
// workspace's table, audited (action table.rows.update).
func (s *Service) AdminUpdateRow(ctx context.Context, p identity.Principal, id int64, d table.Data, rowID int64, values map[string]any, userID *string) error {
	a, err := s.asAdmin(ctx, p, id)
	if err != nil {
		return err
	}
	if err := a.view.UpdateRow(ctx, a.as, id, d, rowID, values, userID); err != nil {
		return err
	}
	s.audit(ctx, p, "table.rows.update", a.t, d, "row_id", rowID)
	return nil
}

// AdminDeleteRow is DeleteRow for a platform administrator on any
// workspace's table, audited (action table.rows.delete).
func (s *Service) AdminDeleteRow(ctx context.Context, p identity.Principal, id int64, d table.Data, rowID int64) error {
	a, err := s.asAdmin(ctx, p, id)
	if err != nil {
		return err
	}
	if err := a.view.DeleteRow(ctx, a.as, id, d, rowID); err != nil {
		return err
	}
	s.audit(ctx, p, "table.rows.delete", a.t, d, "row_id", rowID)
	return nil
}

// adminCall is what the builders' row use cases need to serve an
// administrator: a service that admits it to the table's own workspace,
// the caller to pass them, and the table.
type adminCall struct {
	view *Service
	as   identity.Principal
	t    *table.Table
}

// asAdmin checks that p is a platform administrator with the admin scope
// and that table id exists, then returns what lets the builders' row use
// cases run for that table's own workspace, so that the row rules are the
// builders' rules and are written once.
func (s *Service) asAdmin(ctx context.Context, p identity.Principal, id int64) (adminCall, error) {
	if !p.IsAdmin {
		return adminCall{}, errs.Forbidden("this needs a platform administrator")
	}
	if err := p.RequireScope(identity.ScopeAdmin); err != nil {
		return adminCall{}, err
	}
	if err := s.available(); err != nil {
		return adminCall{}, err
	}
	t, err := s.d.Tables.GetTable(ctx, id)
	if errors.Is(err, errs.ErrNotFound) {
		return adminCall{}, tableNotFound(id)
	}
	if err != nil {
		return adminCall{}, fmt.Errorf("load table %d: %w", id, err)
	}
	view := &Service{d: s.d}
	view.d.Access = ownWorkspace{id: t.WorkspaceID}
	// The admin scope stands for the table scope here; a token's
	// workspace restriction does not bind platform administration.
	as := identity.Principal{UserID: p.UserID, IsAdmin: true, TokenID: p.TokenID, TokenKind: p.TokenKind,
		Scopes: []string{identity.ScopeTable}}
	return adminCall{view: view, as: as, t: t}, nil
}

// ownWorkspace admits an administrator to one workspace, the table's own,
// as its owner would be: nothing else is reachable through it.
type ownWorkspace struct{ id int64 }

// Authorize implements Authorizer.
func (w ownWorkspace) Authorize(_ context.Context, p identity.Principal, workspaceID int64, _ identity.Role) (*identity.Member, error) {
	if workspaceID != w.id {
		return nil, errs.Forbidden("an administrator acts here in workspace %d only", w.id)
	}
	return &identity.Member{WorkspaceID: workspaceID, UserID: p.UserID, Role: identity.RoleOwner}, nil
}

// audit writes one info line saying which administrator, with which
// token, did what to which table's rows: the workspace's members did not
// do it themselves.
func (s *Service) audit(ctx context.Context, p identity.Principal, action string, t *table.Table, d table.Data, attrs ...any) {
	args := []any{"audit", true, "action", action, "admin_user_id", strconv.FormatInt(p.UserID, 10), "token_id", p.TokenID,
		"table_id", t.ID, "table_name", t.Name, "workspace_id", t.WorkspaceID, "data", string(d)}
	s.d.Log.InfoContext(ctx, "admin used a table's rows", append(args, attrs...)...)
}
