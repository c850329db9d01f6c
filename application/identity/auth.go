package identity

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"time"

	"golang.org/x/crypto/bcrypt"

	"github.com/pergola-ai/pergola/domain/errs"
	"github.com/pergola-ai/pergola/domain/identity"
)

// touchEvery limits last-used writes to one per token per interval.
const touchEvery = time.Minute

// Authenticate turns a bearer secret into the caller's Principal. A token
// restricted to workspaces never acts as a platform administrator, even
// an administrator's (Principal.IsAdmin is false). It fails
// with ErrUnauthenticated for unknown, revoked or expired tokens and for
// disabled users.
func (s *Service) Authenticate(ctx context.Context, secret string) (identity.Principal, error) {
	if secret == "" {
		return identity.Principal{}, errs.Unauthenticated("missing token: send Authorization: Bearer <token>; " + identity.NewTokenHint)
	}
	tok, err := s.tokens.GetTokenByHash(ctx, identity.HashSecret(secret))
	if errors.Is(err, errs.ErrNotFound) {
		return identity.Principal{}, errs.Unauthenticated("authentication is invalid: this server knows no such token " +
			"(check it was copied whole, was made on this server and was not deleted); " + identity.NewTokenHint)
	}
	if err != nil {
		return identity.Principal{}, fmt.Errorf("authenticate: %w", err)
	}
	now := s.now()
	if err := tok.Usable(now); err != nil {
		return identity.Principal{}, err
	}
	u, err := s.users.GetUser(ctx, tok.UserID)
	if err != nil {
		return identity.Principal{}, fmt.Errorf("authenticate: %w", err)
	}
	if u.Disabled {
		return identity.Principal{}, errs.Unauthenticated("this user is disabled")
	}
	if tok.LastUsedAt == nil || now.Sub(*tok.LastUsedAt) > touchEvery {
		if err := s.tokens.TouchToken(ctx, tok.ID, now); err != nil {
			return identity.Principal{}, fmt.Errorf("authenticate: %w", err)
		}
	}
	return identity.Principal{
		UserID: u.ID, IsAdmin: u.IsAdmin && len(tok.WorkspaceIDs) == 0, TokenID: tok.ID, TokenKind: tok.Kind,
		Scopes: tok.Scopes, Workspaces: tok.WorkspaceIDs, ExpiresAt: tok.ExpiresAt,
	}, nil
}

// Session is a signed-in console session; Secret is shown only here.
type Session struct {
	Secret    string
	ExpiresAt time.Time
	User      identity.User
}

// Login checks an e-mail and password and opens a console session. A wrong
// e-mail or password fails with ErrUnauthenticated without saying which.
func (s *Service) Login(ctx context.Context, email, password string) (*Session, error) {
	email = strings.TrimSpace(strings.ToLower(email))
	if email == "" || password == "" {
		return nil, errs.Invalid("email", "email and password are required")
	}
	u, err := s.users.GetUserByEmail(ctx, email)
	if errors.Is(err, errs.ErrNotFound) {
		// Spend the time a real check takes, so timing does not tell
		// which e-mails are registered.
		_ = bcrypt.CompareHashAndPassword(s.dummyHash(), []byte(password))
		return nil, errs.Unauthenticated("email or password is wrong")
	}
	if err != nil {
		return nil, fmt.Errorf("login: %w", err)
	}
	if u.PasswordHash == "" || bcrypt.CompareHashAndPassword([]byte(u.PasswordHash), []byte(password)) != nil {
		return nil, errs.Unauthenticated("email or password is wrong")
	}
	if u.Disabled {
		return nil, errs.Unauthenticated("this user is disabled")
	}
	secret := identity.NewSecret(identity.TokenSession)
	exp := s.now().Add(s.sessionTTL).UTC()
	tok := &identity.Token{
		UserID: u.ID, Kind: identity.TokenSession, Name: "console session",
		Hash: identity.HashSecret(secret), Hint: identity.SecretHint(secret),
		Scopes: []string{identity.ScopeAll}, ExpiresAt: &exp,
	}
	if err := s.tokens.CreateToken(ctx, tok); err != nil {
		return nil, fmt.Errorf("login: %w", err)
	}
	return &Session{Secret: secret, ExpiresAt: exp, User: *u}, nil
}

// Logout revokes the session token the caller used.
func (s *Service) Logout(ctx context.Context, p identity.Principal) error {
	if p.TokenKind != identity.TokenSession {
		return errs.Invalid("token", "logout ends console sessions; revoke a personal access token with DELETE /api/tokens/{id}")
	}
	return s.tokens.RevokeToken(ctx, p.UserID, p.TokenID, s.now())
}

// Me returns the caller's user.
func (s *Service) Me(ctx context.Context, p identity.Principal) (*identity.User, error) {
	return s.users.GetUser(ctx, p.UserID)
}

// defaultDummyHash is a bcrypt hash, at bcrypt.DefaultCost, of 64 random hex
// characters that were thrown away: no password matches it. It is a constant
// so that start-up does no hashing (one bcrypt hash was a third of it).
const defaultDummyHash = "$2a$10$OjaJE.Mg2xN9fwO6V6dYKuMNlXHmmyuvVI.h7HCOd7qTaPdzG3FuW"

// dummyHashFor returns what Login compares a password against when the
// e-mail is unknown. Its cost must be the cost of real hashes, or the time
// of a failed login would tell whether the e-mail is registered; for costs
// other than the default (tests) the hash is made once, on first use.
func dummyHashFor(cost int) func() []byte {
	if cost == bcrypt.DefaultCost {
		return func() []byte { return []byte(defaultDummyHash) }
	}
	return sync.OnceValue(func() []byte {
		h, _ := bcrypt.GenerateFromPassword([]byte(identity.NewSecret(identity.TokenSession)), cost)
		return h
	})
}
