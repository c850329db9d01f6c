package identity

import (
	"context"
	"errors"
	"strings"

	"github.com/pergola-ai/pergola/domain/errs"
	"github.com/pergola-ai/pergola/domain/identity"
)

// ListMembers lists the members of a workspace the caller belongs to.
func (s *Service) ListMembers(ctx context.Context, p identity.Principal, workspaceID int64) ([]identity.Member, error) {
	if _, err := s.Authorize(ctx, p, workspaceID, identity.RoleMember); err != nil {
		return nil, err
	}
	return s.workspaces.ListMembers(ctx, workspaceID)
}

// AddMember adds the user with the given e-mail to a workspace. It needs
// the admin role; only an owner may add another owner.
func (s *Service) AddMember(ctx context.Context, p identity.Principal, workspaceID int64, email string, role identity.Role) (*identity.Member, error) {
	me, err := s.manage(ctx, p, workspaceID, identity.RoleAdmin)
	if err != nil {
		return nil, err
	}
	if role == identity.RoleOwner && me.Role != identity.RoleOwner {
		return nil, errs.Forbidden("only an owner can add an owner")
	}
	u, err := s.users.GetUserByEmail(ctx, strings.ToLower(strings.TrimSpace(email)))
	if errors.Is(err, errs.ErrNotFound) {
		return nil, errs.Invalid("email", "no user is registered with %q", email)
	}
	if err != nil {
		return nil, err
	}
	m := &identity.Member{WorkspaceID: workspaceID, UserID: u.ID, Role: role, UserEmail: u.Email, UserName: u.Name}
	if err := s.workspaces.AddMember(ctx, m); err != nil {
		return nil, err
	}
	return m, nil
}

// SetMemberRole changes a member's role. It needs the admin role; granting
// or taking away the owner role needs an owner, and the last owner stays.
func (s *Service) SetMemberRole(ctx context.Context, p identity.Principal, workspaceID, userID int64, role identity.Role) error {
	me, err := s.manage(ctx, p, workspaceID, identity.RoleAdmin)
	if err != nil {
		return err
	}
	target, err := s.workspaces.GetMember(ctx, workspaceID, userID)
	if err != nil {
		return err
	}
	touchesOwner := role == identity.RoleOwner || target.Role == identity.RoleOwner
	if touchesOwner && me.Role != identity.RoleOwner {
		return errs.Forbidden("only an owner can grant or take away the owner role")
	}
	return s.workspaces.SetMemberRole(ctx, workspaceID, userID, role)
}

// RemoveMember removes a member. Admins remove others; anyone may leave.
// An owner can only be removed by an owner, and never the last one (the
// store checks that in the transaction of the write).
func (s *Service) RemoveMember(ctx context.Context, p identity.Principal, workspaceID, userID int64) error {
	min := identity.RoleAdmin
	if userID == p.UserID {
		min = identity.RoleMember
	}
	me, err := s.manage(ctx, p, workspaceID, min)
	if err != nil {
		return err
	}
	target, err := s.workspaces.GetMember(ctx, workspaceID, userID)
	if err != nil {
		return err
	}
	if target.Role == identity.RoleOwner {
		if me.Role != identity.RoleOwner {
			return errs.Forbidden("only an owner can remove an owner")
		}
	}
	return s.workspaces.RemoveMember(ctx, workspaceID, userID)
}
