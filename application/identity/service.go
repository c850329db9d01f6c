// Package identity holds the use cases of users, workspaces, members and
// tokens: sign-in, token management, membership and the access check every
// other use case calls before it touches a workspace.
package identity

import (
	"context"
	"errors"
	"fmt"
	"time"

	"golang.org/x/crypto/bcrypt"

	"github.com/pergola-ai/pergola/domain/errs"
	"github.com/pergola-ai/pergola/domain/identity"
)

// Service runs the identity use cases.
type Service struct {
	users      identity.UserStore
	workspaces identity.WorkspaceStore
	tokens     identity.TokenStore
	now        func() time.Time
	cost       int
	sessionTTL time.Duration
	dummyHash  func() []byte // compared against when an e-mail is unknown
}

// Option tunes a Service.
type Option func(*Service)

// WithClock replaces time.Now, for tests.
func WithClock(now func() time.Time) Option { return func(s *Service) { s.now = now } }

// WithPasswordCost sets the bcrypt cost (tests use bcrypt.MinCost).
func WithPasswordCost(cost int) Option { return func(s *Service) { s.cost = cost } }

// New returns a Service over the given stores.
func New(users identity.UserStore, workspaces identity.WorkspaceStore, tokens identity.TokenStore, opts ...Option) *Service {
	s := &Service{
		users: users, workspaces: workspaces, tokens: tokens,
		now: time.Now, cost: bcrypt.DefaultCost, sessionTTL: 7 * 24 * time.Hour,
	}
	for _, o := range opts {
		o(s)
	}
	s.dummyHash = dummyHashFor(s.cost)
	return s
}

func (s *Service) hashPassword(password string) (string, error) {
	if err := identity.ValidatePassword(password); err != nil {
		return "", err
	}
	h, err := bcrypt.GenerateFromPassword([]byte(password), s.cost)
	if err != nil {
		return "", fmt.Errorf("hash password: %w", err)
	}
	return string(h), nil
}

// Authorize checks that the caller may act in workspace id with at least
// role min, and returns the caller's membership. It fails with ErrForbidden
// when the token is restricted to other workspaces, the caller is not a
// member, or the role is too weak.
func (s *Service) Authorize(ctx context.Context, p identity.Principal, workspaceID int64, min identity.Role) (*identity.Member, error) {
	if !p.TokenAllowsWorkspace(workspaceID) {
		return nil, errs.Forbidden("this token is not valid for workspace %d", workspaceID)
	}
	m, err := s.workspaces.GetMember(ctx, workspaceID, p.UserID)
	if errors.Is(err, errs.ErrNotFound) {
		return nil, errs.Forbidden("you are not a member of workspace %d", workspaceID)
	}
	if err != nil {
		return nil, fmt.Errorf("authorize: %w", err)
	}
	if !m.Role.AtLeast(min) {
		return nil, errs.Forbidden("this needs the %s role in workspace %d; you are %s", min, workspaceID, m.Role)
	}
	return m, nil
}

// RequireAdmin fails with ErrForbidden unless the caller is a platform
// administrator using a token with the admin scope.
func RequireAdmin(p identity.Principal) error {
	if !p.IsAdmin {
		return errs.Forbidden("this needs a platform administrator")
	}
	return p.RequireScope(identity.ScopeAdmin)
}
