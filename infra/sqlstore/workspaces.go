package sqlstore

import (
	"context"
	"fmt"
	"strconv"
	"time"

	"gorm.io/gorm"

	"github.com/pergola-ai/pergola/domain/errs"
	"github.com/pergola-ai/pergola/domain/identity"
)

// WorkspaceStore keeps workspaces and their members in the workspaces and
// workspace_members tables. Every query names the workspace it acts on.
type WorkspaceStore struct{ db *DB }

var _ identity.WorkspaceStore = (*WorkspaceStore)(nil)

// Workspaces returns the store of workspaces and members.
func (db *DB) Workspaces() *WorkspaceStore { return &WorkspaceStore{db: db} }

type workspaceRow struct {
	ID          int64 `gorm:"primaryKey;autoIncrement:false"`
	Name        string
	Description string
	Kind        string
	OwnerID     int64
	CreatedAt   time.Time
	UpdatedAt   time.Time
}

func (workspaceRow) TableName() string { return "workspaces" }

func workspaceToRow(w *identity.Workspace) *workspaceRow {
	return &workspaceRow{
		ID: w.ID, Name: w.Name, Description: w.Description, Kind: string(w.Kind), OwnerID: w.OwnerID,
		CreatedAt: dbTime(w.CreatedAt), UpdatedAt: dbTime(w.UpdatedAt),
	}
}

func workspaceFromRow(r *workspaceRow) *identity.Workspace {
	return &identity.Workspace{
		ID: r.ID, Name: r.Name, Description: r.Description, Kind: identity.WorkspaceKind(r.Kind), OwnerID: r.OwnerID,
		CreatedAt: r.CreatedAt.UTC(), UpdatedAt: r.UpdatedAt.UTC(),
	}
}

func workspaceNotFound(id int64) error { return errs.NotFound("workspace", strconv.FormatInt(id, 10)) }

// CreateWorkspace stores ws, assigning its ID when zero and its timestamps,
// and makes ws.OwnerID a member with the owner role, in one transaction. It
// returns errs.ErrNotFound when the owner is not a user and
// errs.ErrConflict when the ID is taken.
func (s *WorkspaceStore) CreateWorkspace(ctx context.Context, ws *identity.Workspace) error {
	row := workspaceToRow(ws)
	if row.ID == 0 {
		row.ID = s.db.ids.Next()
	}
	row.CreatedAt = s.db.timestamp()
	row.UpdatedAt = row.CreatedAt
	owner := &memberRow{WorkspaceID: row.ID, UserID: row.OwnerID, Role: string(identity.RoleOwner), CreatedAt: row.CreatedAt}
	err := s.db.gorm.WithContext(ctx).Transaction(func(tx *gorm.DB) error {
		if err := tx.Create(row).Error; err != nil {
			return err
		}
		return tx.Create(owner).Error
	})
	switch {
	case err == nil:
		*ws = *workspaceFromRow(row)
		return nil
	case isMissingParent(err):
		return userNotFound(row.OwnerID)
	case isDuplicate(err):
		return errs.Conflict("workspace %d already exists", row.ID)
	}
	return fmt.Errorf("sqlstore: create workspace: %w", err)
}

// GetWorkspace returns the workspace with id, or errs.ErrNotFound.
func (s *WorkspaceStore) GetWorkspace(ctx context.Context, id int64) (*identity.Workspace, error) {
	var row workspaceRow
	if err := s.db.gorm.WithContext(ctx).Where("id = ?", id).Take(&row).Error; err != nil {
		if isNoRow(err) {
			return nil, workspaceNotFound(id)
		}
		return nil, fmt.Errorf("sqlstore: get workspace: %w", err)
	}
	return workspaceFromRow(&row), nil
}

// membershipRow is a workspace joined with one member's role.
type membershipRow struct {
	Workspace workspaceRow `gorm:"embedded"`
	Role      string
}

// ListWorkspacesOfUser returns one page, in workspace ID order, of the
// workspaces userID is a member of, each with the user's role, and how many
// there are in all.
func (s *WorkspaceStore) ListWorkspacesOfUser(ctx context.Context, userID int64, p identity.Page) ([]identity.MembershipView, int64, error) {
	query := func() *gorm.DB {
		return s.db.gorm.WithContext(ctx).Table("workspace_members AS m").
			Joins("JOIN workspaces AS w ON w.id = m.workspace_id").
			Where("m.user_id = ?", userID)
	}
	var total int64
	if err := query().Count(&total).Error; err != nil {
		return nil, 0, fmt.Errorf("sqlstore: count workspaces of user: %w", err)
	}
	var rows []membershipRow
	if err := page(query().Select("w.*, m.role").Order("w.id"), p).Scan(&rows).Error; err != nil {
		return nil, 0, fmt.Errorf("sqlstore: list workspaces of user: %w", err)
	}
	views := make([]identity.MembershipView, len(rows))
	for i := range rows {
		views[i] = identity.MembershipView{Workspace: *workspaceFromRow(&rows[i].Workspace), Role: identity.Role(rows[i].Role)}
	}
	return views, total, nil
}

// ListAllWorkspaces returns one page of every workspace in ID order and how
// many there are, for the admin API.
func (s *WorkspaceStore) ListAllWorkspaces(ctx context.Context, p identity.Page) ([]identity.Workspace, int64, error) {
	gdb := s.db.gorm.WithContext(ctx)
	var total int64
	if err := gdb.Model(&workspaceRow{}).Count(&total).Error; err != nil {
		return nil, 0, fmt.Errorf("sqlstore: count workspaces: %w", err)
	}
	var rows []workspaceRow
	if err := page(gdb.Order("id"), p).Find(&rows).Error; err != nil {
		return nil, 0, fmt.Errorf("sqlstore: list workspaces: %w", err)
	}
	out := make([]identity.Workspace, len(rows))
	for i := range rows {
		out[i] = *workspaceFromRow(&rows[i])
	}
	return out, total, nil
}

// UpdateWorkspace runs fn on the workspace with id inside a transaction,
// with the row locked, and saves the result; ID and CreatedAt are kept,
// UpdatedAt is set. It returns errs.ErrNotFound for an unknown id and fn's
// error unchanged, writing nothing, when fn fails. Changing OwnerID does not
// change memberships.
func (s *WorkspaceStore) UpdateWorkspace(ctx context.Context, id int64, fn func(*identity.Workspace) error) (*identity.Workspace, error) {
	row, err := updateLocked(ctx, s.db, "update workspace", func() error { return workspaceNotFound(id) }, func(r *workspaceRow) error {
		w := workspaceFromRow(r)
		if err := fn(w); err != nil {
			return err
		}
		w.ID, w.CreatedAt, w.UpdatedAt = r.ID, r.CreatedAt, s.db.timestamp()
		*r = *workspaceToRow(w)
		return nil
	}, "id = ?", id)
	if isMissingParent(err) {
		return nil, errs.Invalid("owner_id", "is not an existing user")
	}
	if err != nil {
		return nil, err
	}
	return workspaceFromRow(row), nil
}

// DeleteWorkspace removes the workspace with id and its memberships, in one
// transaction. It returns errs.ErrNotFound for an unknown id.
func (s *WorkspaceStore) DeleteWorkspace(ctx context.Context, id int64) error {
	err := s.db.gorm.WithContext(ctx).Transaction(func(tx *gorm.DB) error {
		if err := tx.Where("workspace_id = ?", id).Delete(&memberRow{}).Error; err != nil {
			return err
		}
		res := tx.Where("id = ?", id).Delete(&workspaceRow{})
		if res.Error == nil && res.RowsAffected == 0 {
			return workspaceNotFound(id)
		}
		return res.Error
	})
	if err != nil && !isDomain(err) {
		return fmt.Errorf("sqlstore: delete workspace: %w", err)
	}
	return err
}
