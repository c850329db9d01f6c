package identity

import (
	"context"
	"fmt"
	"strings"

	"github.com/pergola-ai/pergola/domain/errs"
	"github.com/pergola-ai/pergola/domain/identity"
)

// UserInput carries the fields an administrator sets on a user.
type UserInput struct {
	Email    string
	Name     string
	Password string
	IsAdmin  bool
}

// CreateUser registers a user with a personal workspace. It is an admin
// use case; the caller's rights are checked by the caller (the admin API or
// the bootstrap).
func (s *Service) CreateUser(ctx context.Context, in UserInput) (*identity.User, *identity.Workspace, error) {
	email := strings.ToLower(strings.TrimSpace(in.Email))
	if err := identity.ValidateEmail(email); err != nil {
		return nil, nil, err
	}
	name := strings.TrimSpace(in.Name)
	if name == "" {
		name = email[:strings.Index(email, "@")]
	}
	if err := identity.ValidateName("name", name); err != nil {
		return nil, nil, err
	}
	u := &identity.User{Email: email, Name: name, IsAdmin: in.IsAdmin}
	if in.Password != "" {
		h, err := s.hashPassword(in.Password)
		if err != nil {
			return nil, nil, err
		}
		u.PasswordHash = h
	}
	if err := s.users.CreateUser(ctx, u); err != nil {
		return nil, nil, fmt.Errorf("create user: %w", err)
	}
	ws := &identity.Workspace{Name: name + "'s workspace", Kind: identity.WorkspacePersonal, OwnerID: u.ID}
	if err := s.workspaces.CreateWorkspace(ctx, ws); err != nil {
		return nil, nil, fmt.Errorf("create personal workspace: %w", err)
	}
	return u, ws, nil
}

// UserPatch carries optional changes to a user.
type UserPatch struct {
	Name     *string
	Password *string
	IsAdmin  *bool
	Disabled *bool
}

// UpdateUser applies an administrator's changes to a user.
func (s *Service) UpdateUser(ctx context.Context, id int64, patch UserPatch) (*identity.User, error) {
	if err := s.keepsAnAdministrator(ctx, id, patch); err != nil {
		return nil, err
	}
	var hash string
	if patch.Password != nil {
		h, err := s.hashPassword(*patch.Password)
		if err != nil {
			return nil, err
		}
		hash = h
	}
	return s.users.UpdateUser(ctx, id, func(u *identity.User) error {
		if patch.Name != nil {
			if err := identity.ValidateName("name", *patch.Name); err != nil {
				return err
			}
			u.Name = strings.TrimSpace(*patch.Name)
		}
		if hash != "" {
			u.PasswordHash = hash
		}
		if patch.IsAdmin != nil {
			u.IsAdmin = *patch.IsAdmin
		}
		if patch.Disabled != nil {
			u.Disabled = *patch.Disabled
		}
		return nil
	})
}

// keepsAnAdministrator refuses a change that would leave the platform
// without an enabled administrator (taking the role from the last one, or
// disabling them): no one could manage users, models or channels again,
// and "pergola token" gives a way back in, not the role.
func (s *Service) keepsAnAdministrator(ctx context.Context, id int64, patch UserPatch) error {
	if (patch.IsAdmin == nil || *patch.IsAdmin) && (patch.Disabled == nil || !*patch.Disabled) {
		return nil
	}
	if u, err := s.users.GetUser(ctx, id); err != nil || !u.IsAdmin || u.Disabled {
		return err // nil, unless the user is unknown
	}
	const size = 500
	for n := 1; ; n++ {
		users, _, err := s.users.ListUsers(ctx, identity.Page{Number: n, Size: size})
		if err != nil {
			return err
		}
		for _, u := range users {
			if u.ID != id && u.IsAdmin && !u.Disabled {
				return nil
			}
		}
		if len(users) < size {
			return errs.Conflict("user %d is the last enabled platform administrator; make another user an administrator first", id)
		}
	}
}

// ListUsers lists every user, for administrators.
func (s *Service) ListUsers(ctx context.Context, page identity.Page) ([]identity.User, int64, error) {
	return s.users.ListUsers(ctx, page)
}

// GetUser returns one user, for administrators.
func (s *Service) GetUser(ctx context.Context, id int64) (*identity.User, error) {
	return s.users.GetUser(ctx, id)
}

// ListAllWorkspaces lists every workspace, for administrators.
func (s *Service) ListAllWorkspaces(ctx context.Context, page identity.Page) ([]identity.Workspace, int64, error) {
	return s.workspaces.ListAllWorkspaces(ctx, page)
}
