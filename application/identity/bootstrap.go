package identity

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/pergola-ai/pergola/domain/errs"
	"github.com/pergola-ai/pergola/domain/identity"
)

// BootstrapInput is what PERGOLA_BOOTSTRAP_* provide.
type BootstrapInput struct {
	Token    string
	Email    string
	Password string
}

// BootstrapOutcome says what Bootstrap found and did, so that the operator
// can be told how to get in.
type BootstrapOutcome int

const (
	// BootstrapCreated: the database was empty; the administrator, a
	// personal workspace and the token were created.
	BootstrapCreated BootstrapOutcome = iota + 1
	// BootstrapNotRequested: the database is empty and no token was given,
	// so nobody can sign in yet.
	BootstrapNotRequested
	// BootstrapNotNeeded: the database has users and no token was given.
	BootstrapNotNeeded
	// BootstrapTokenKnown: the database has users and the token is one of
	// theirs, usable.
	BootstrapTokenKnown
	// BootstrapTokenIgnored: the database has users and the token is
	// unknown, revoked or expired. It was not applied and gets 401.
	BootstrapTokenIgnored
)

// Bootstrap prepares an empty database: it creates the administrator, a
// personal workspace and a never-expiring PAT whose secret is in.Token, so
// scripts can start from nothing. On a database with users it never adds
// or revives a token: a revoked bootstrap token must stay revoked across
// restarts, and a token left in an environment file must not become a
// credential of a running platform. It only reports whether in.Token is
// usable there.
func (s *Service) Bootstrap(ctx context.Context, in BootstrapInput) (BootstrapOutcome, error) {
	n, err := s.users.CountUsers(ctx)
	if err != nil {
		return 0, fmt.Errorf("bootstrap: %w", err)
	}
	switch {
	case n > 0 && in.Token == "":
		return BootstrapNotNeeded, nil
	case n > 0:
		return s.checkBootstrapToken(ctx, in.Token)
	case in.Token == "":
		return BootstrapNotRequested, nil
	}
	err = s.createBootstrapAdmin(ctx, in)
	if errors.Is(err, errs.ErrConflict) {
		return s.awaitOtherBootstrap(ctx, in.Token) // another process started at the same time
	}
	if err != nil {
		return 0, err
	}
	return BootstrapCreated, nil
}

// awaitOtherBootstrap waits, for at most two seconds, for the token of a
// bootstrap that another process won to be stored (it stores the
// administrator first, then the token) and reports on it.
func (s *Service) awaitOtherBootstrap(ctx context.Context, secret string) (BootstrapOutcome, error) {
	for range 40 {
		out, err := s.checkBootstrapToken(ctx, secret)
		if err != nil || out == BootstrapTokenKnown {
			return out, err
		}
		select {
		case <-ctx.Done():
			return 0, ctx.Err()
		case <-time.After(50 * time.Millisecond):
		}
	}
	return s.checkBootstrapToken(ctx, secret)
}

func (s *Service) checkBootstrapToken(ctx context.Context, secret string) (BootstrapOutcome, error) {
	tok, err := s.tokens.GetTokenByHash(ctx, identity.HashSecret(secret))
	if errors.Is(err, errs.ErrNotFound) {
		return BootstrapTokenIgnored, nil
	}
	if err != nil {
		return 0, fmt.Errorf("bootstrap: %w", err)
	}
	if tok.Usable(s.now()) != nil {
		return BootstrapTokenIgnored, nil
	}
	return BootstrapTokenKnown, nil
}

func (s *Service) createBootstrapAdmin(ctx context.Context, in BootstrapInput) error {
	u, _, err := s.CreateUser(ctx, UserInput{Email: in.Email, Name: "admin", Password: in.Password, IsAdmin: true})
	if err != nil {
		return fmt.Errorf("bootstrap: %w", err)
	}
	tok := &identity.Token{
		UserID: u.ID, Kind: identity.TokenPAT, Name: "bootstrap",
		Hash: identity.HashSecret(in.Token), Hint: identity.SecretHint(in.Token),
		Scopes: []string{identity.ScopeAll, identity.ScopeAdmin},
	}
	if err := s.tokens.CreateToken(ctx, tok); err != nil {
		return fmt.Errorf("bootstrap token: %w", err)
	}
	return nil
}

// IssueToken mints a personal access token for the user with the given
// e-mail on the operator's behalf (`pergola token`), for an administrator
// who lost every token and password. An administrator's token has the
// admin scope. days is the lifetime, 0 for never. It fails with
// ErrNotFound for an unknown e-mail and ErrInvalid for a disabled user or
// a bad name or lifetime.
func (s *Service) IssueToken(ctx context.Context, email, name string, days int) (*NewToken, error) {
	u, err := s.users.GetUserByEmail(ctx, strings.ToLower(strings.TrimSpace(email)))
	if errors.Is(err, errs.ErrNotFound) {
		return nil, fmt.Errorf("no user has the e-mail %q: %w", email, err)
	}
	if err != nil {
		return nil, fmt.Errorf("issue token: %w", err)
	}
	if u.Disabled {
		return nil, errs.Invalid("email", "the user %s is disabled; enable them first", u.Email)
	}
	scopes := []string{identity.ScopeAll}
	if u.IsAdmin {
		scopes = append(scopes, identity.ScopeAdmin)
	}
	p := identity.Principal{UserID: u.ID, IsAdmin: u.IsAdmin, Scopes: scopes}
	return s.CreateToken(ctx, p, CreateTokenInput{Name: name, Scopes: scopes, ExpiresInDays: &days})
}
