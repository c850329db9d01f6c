// Package identity holds users, workspaces, their members and the tokens that
// authenticate API calls. A workspace is the tenant boundary: every resource
// of Pergola belongs to exactly one.
package identity

import (
	"net/mail"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/pergola-ai/pergola/domain/errs"
)

// User is a person who signs in to the console or calls the API with a token.
type User struct {
	ID           int64
	Email        string
	Name         string
	PasswordHash string // empty when the user may not sign in with a password
	IsAdmin      bool   // platform administrator: may use the admin API
	Disabled     bool
	CreatedAt    time.Time
	UpdatedAt    time.Time
}

// WorkspaceKind tells a user's personal workspace from a shared team one.
type WorkspaceKind string

// Workspace kinds.
const (
	WorkspacePersonal WorkspaceKind = "personal"
	WorkspaceTeam     WorkspaceKind = "team"
)

// Workspace is a tenant: bots, plugins, workflows and tables live in one.
type Workspace struct {
	ID          int64
	Name        string
	Description string
	Kind        WorkspaceKind
	OwnerID     int64
	CreatedAt   time.Time
	UpdatedAt   time.Time
}

// Member is a user's membership of a workspace, with the role they hold.
type Member struct {
	WorkspaceID int64
	UserID      int64
	Role        Role
	CreatedAt   time.Time
	// Filled on reads for display; ignored on writes.
	UserEmail string
	UserName  string
}

// MembershipView is a workspace seen by one of its members.
type MembershipView struct {
	Workspace Workspace
	Role      Role
}

// ValidateEmail checks the shape of an e-mail address.
func ValidateEmail(email string) error {
	if email == "" {
		return errs.Invalid("email", "is required")
	}
	addr, err := mail.ParseAddress(email)
	if err != nil || addr.Address != email || len(email) > 254 {
		return errs.Invalid("email", "must be a plain address such as ada@example.com")
	}
	return nil
}

// ValidatePassword enforces the minimum password policy.
func ValidatePassword(password string) error {
	n := utf8.RuneCountInString(password)
	if n < 8 {
		return errs.Invalid("password", "must be at least 8 characters")
	}
	if len(password) > 72 {
		return errs.Invalid("password", "must be at most 72 bytes")
	}
	return nil
}

// ValidateName checks a display name for users and workspaces.
func ValidateName(field, name string) error {
	if strings.TrimSpace(name) == "" {
		return errs.Invalid(field, "is required")
	}
	if utf8.RuneCountInString(name) > 100 {
		return errs.Invalid(field, "must be at most 100 characters")
	}
	return nil
}
