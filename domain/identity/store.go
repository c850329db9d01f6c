package identity

import (
	"context"
	"time"
)

// Page asks for one page of a list. Number is 1-based.
type Page struct {
	Number int
	Size   int
}

// Offset returns the number of rows before the page.
func (p Page) Offset() int { return (max(p.Number, 1) - 1) * p.Size }

// UserStore keeps users. Get and GetByEmail return errs.ErrNotFound when
// there is no such user; Create returns errs.ErrConflict on a taken e-mail.
type UserStore interface {
	CreateUser(ctx context.Context, u *User) error
	GetUser(ctx context.Context, id int64) (*User, error)
	GetUserByEmail(ctx context.Context, email string) (*User, error)
	ListUsers(ctx context.Context, p Page) ([]User, int64, error)
	UpdateUser(ctx context.Context, id int64, fn func(*User) error) (*User, error)
	CountUsers(ctx context.Context) (int64, error)
}

// WorkspaceStore keeps workspaces and their members. Every method but
// CreateWorkspace and ListWorkspacesOfUser takes the workspace it acts on.
type WorkspaceStore interface {
	// CreateWorkspace stores ws and makes its owner a member, atomically.
	CreateWorkspace(ctx context.Context, ws *Workspace) error
	GetWorkspace(ctx context.Context, id int64) (*Workspace, error)
	ListWorkspacesOfUser(ctx context.Context, userID int64, p Page) ([]MembershipView, int64, error)
	ListAllWorkspaces(ctx context.Context, p Page) ([]Workspace, int64, error)
	UpdateWorkspace(ctx context.Context, id int64, fn func(*Workspace) error) (*Workspace, error)
	DeleteWorkspace(ctx context.Context, id int64) error

	GetMember(ctx context.Context, workspaceID, userID int64) (*Member, error)
	ListMembers(ctx context.Context, workspaceID int64) ([]Member, error)
	// AddMember returns errs.ErrConflict when the user is already a member.
	AddMember(ctx context.Context, m *Member) error
	// SetMemberRole and RemoveMember return errs.ErrConflict when the
	// change would leave the workspace without an owner, checked in the
	// same transaction as the write.
	SetMemberRole(ctx context.Context, workspaceID, userID int64, role Role) error
	RemoveMember(ctx context.Context, workspaceID, userID int64) error
}

// TokenStore keeps tokens by their hash.
type TokenStore interface {
	CreateToken(ctx context.Context, t *Token) error
	GetTokenByHash(ctx context.Context, hash string) (*Token, error)
	ListTokensOfUser(ctx context.Context, userID int64, kind TokenKind) ([]Token, error)
	// RevokeToken marks a token of userID revoked; errs.ErrNotFound when
	// userID has no such token.
	RevokeToken(ctx context.Context, userID, tokenID int64, at time.Time) error
	TouchToken(ctx context.Context, tokenID int64, at time.Time) error
}
