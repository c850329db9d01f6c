package sqlstore

import (
	"context"
	"fmt"
	"gorm.io/gorm"
	"time"

	"github.com/pergola-ai/pergola/domain/errs"
	"github.com/pergola-ai/pergola/domain/identity"
)

type memberRow struct {
	WorkspaceID int64 `gorm:"primaryKey;autoIncrement:false"`
	UserID      int64 `gorm:"primaryKey;autoIncrement:false"`
	Role        string
	CreatedAt   time.Time
}

func (memberRow) TableName() string { return "workspace_members" }

// memberViewRow is a membership joined with the member's user.
type memberViewRow struct {
	Member    memberRow `gorm:"embedded"`
	UserEmail string
	UserName  string
}

func memberFromRow(r *memberViewRow) *identity.Member {
	return &identity.Member{
		WorkspaceID: r.Member.WorkspaceID, UserID: r.Member.UserID, Role: identity.Role(r.Member.Role),
		CreatedAt: r.Member.CreatedAt.UTC(), UserEmail: r.UserEmail, UserName: r.UserName,
	}
}

func memberNotFound(workspaceID, userID int64) error {
	return errs.NotFound("membership", fmt.Sprintf("of user %d in workspace %d", userID, workspaceID))
}

const memberViewColumns = "m.workspace_id, m.user_id, m.role, m.created_at, u.email AS user_email, u.name AS user_name"

// GetMember returns userID's membership of workspaceID with the user's
// e-mail and name, or errs.ErrNotFound when userID is not a member.
func (s *WorkspaceStore) GetMember(ctx context.Context, workspaceID, userID int64) (*identity.Member, error) {
	var rows []memberViewRow
	err := s.db.gorm.WithContext(ctx).Table("workspace_members AS m").Select(memberViewColumns).
		Joins("JOIN users AS u ON u.id = m.user_id").
		Where("m.workspace_id = ? AND m.user_id = ?", workspaceID, userID).
		Limit(1).Scan(&rows).Error
	if err != nil {
		return nil, fmt.Errorf("sqlstore: get member: %w", err)
	}
	if len(rows) == 0 {
		return nil, memberNotFound(workspaceID, userID)
	}
	return memberFromRow(&rows[0]), nil
}

// ListMembers returns the members of workspaceID with their e-mails and
// names, oldest membership first; none for an unknown workspace.
func (s *WorkspaceStore) ListMembers(ctx context.Context, workspaceID int64) ([]identity.Member, error) {
	var rows []memberViewRow
	err := s.db.gorm.WithContext(ctx).Table("workspace_members AS m").Select(memberViewColumns).
		Joins("JOIN users AS u ON u.id = m.user_id").
		Where("m.workspace_id = ?", workspaceID).
		Order("m.created_at, m.user_id").Scan(&rows).Error
	if err != nil {
		return nil, fmt.Errorf("sqlstore: list members: %w", err)
	}
	out := make([]identity.Member, len(rows))
	for i := range rows {
		out[i] = *memberFromRow(&rows[i])
	}
	return out, nil
}

// AddMember stores m, setting its CreatedAt; UserEmail and UserName are
// ignored. It returns errs.ErrConflict when the user is already a member
// and errs.ErrNotFound when the workspace or the user does not exist.
func (s *WorkspaceStore) AddMember(ctx context.Context, m *identity.Member) error {
	row := &memberRow{WorkspaceID: m.WorkspaceID, UserID: m.UserID, Role: string(m.Role), CreatedAt: s.db.timestamp()}
	err := s.db.gorm.WithContext(ctx).Create(row).Error
	switch {
	case err == nil:
		m.CreatedAt = row.CreatedAt
		return nil
	case isDuplicate(err):
		return errs.Conflict("user %d is already a member of workspace %d", m.UserID, m.WorkspaceID)
	case isMissingParent(err):
		return s.whichIsMissing(ctx, m.WorkspaceID, m.UserID)
	}
	return fmt.Errorf("sqlstore: add member: %w", err)
}

// whichIsMissing names the missing parent after a foreign-key violation.
func (s *WorkspaceStore) whichIsMissing(ctx context.Context, workspaceID, userID int64) error {
	if _, err := s.GetWorkspace(ctx, workspaceID); err != nil {
		return err
	}
	if _, err := s.db.Users().GetUser(ctx, userID); err != nil {
		return err
	}
	return fmt.Errorf("sqlstore: add member: workspace %d and user %d exist yet the foreign key failed", workspaceID, userID)
}

// SetMemberRole gives userID the role in workspaceID. It returns
// errs.ErrNotFound when userID is not a member and errs.ErrConflict when the
// change would leave the workspace without an owner.
func (s *WorkspaceStore) SetMemberRole(ctx context.Context, workspaceID, userID int64, role identity.Role) error {
	return s.changeMember(ctx, workspaceID, userID, role != identity.RoleOwner, "set member role", func(tx *gorm.DB) *gorm.DB {
		return tx.Model(&memberRow{}).Where("workspace_id = ? AND user_id = ?", workspaceID, userID).Update("role", string(role))
	})
}

// RemoveMember ends userID's membership of workspaceID. It returns
// errs.ErrNotFound when userID is not a member and errs.ErrConflict when it
// is the workspace's last owner.
func (s *WorkspaceStore) RemoveMember(ctx context.Context, workspaceID, userID int64) error {
	return s.changeMember(ctx, workspaceID, userID, true, "remove member", func(tx *gorm.DB) *gorm.DB {
		return tx.Where("workspace_id = ? AND user_id = ?", workspaceID, userID).Delete(&memberRow{})
	})
}

// changeMember runs write in a transaction that first locks the
// workspace's owner rows, so two owners demoting each other at once cannot
// leave the workspace without one.
func (s *WorkspaceStore) changeMember(ctx context.Context, workspaceID, userID int64, dropsOwner bool, op string, write func(*gorm.DB) *gorm.DB) error {
	var own error
	err := s.db.gorm.WithContext(ctx).Transaction(func(tx *gorm.DB) error {
		var owners []int64
		if err := forUpdate(tx.Model(&memberRow{})).Where("workspace_id = ? AND role = ?", workspaceID, string(identity.RoleOwner)).
			Pluck("user_id", &owners).Error; err != nil {
			return err
		}
		if dropsOwner && len(owners) == 1 && owners[0] == userID {
			own = errs.Conflict("workspace %d would be left without an owner; make another member owner first", workspaceID)
			return own
		}
		res := write(tx)
		if res.Error != nil {
			return res.Error
		}
		if res.RowsAffected == 0 {
			own = memberNotFound(workspaceID, userID)
			return own
		}
		return nil
	})
	if own != nil {
		return own
	}
	if err != nil {
		return fmt.Errorf("sqlstore: %s: %w", op, err)
	}
	return nil
}
