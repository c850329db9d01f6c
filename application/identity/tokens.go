package identity

import (
	"context"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/pergola-ai/pergola/domain/errs"
	"github.com/pergola-ai/pergola/domain/identity"
)

// maxTokenLifetime caps how long a personal access token may live.
const maxTokenLifetime = 366 * 24 * time.Hour

// CreateTokenInput describes a new personal access token.
type CreateTokenInput struct {
	Name         string
	Scopes       []string
	WorkspaceIDs []int64
	// ExpiresInDays: nil means 90 days; 0 means the token never expires.
	ExpiresInDays *int
}

// NewToken is a created token with its secret, which is shown only once.
type NewToken struct {
	Secret string
	Token  identity.Token
}

// CreateToken issues a personal access token to the caller. Workspace
// restrictions must name workspaces the caller belongs to; the admin scope
// needs a platform administrator.
func (s *Service) CreateToken(ctx context.Context, p identity.Principal, in CreateTokenInput) (*NewToken, error) {
	if err := identity.ValidateName("name", in.Name); err != nil {
		return nil, err
	}
	scopes, err := identity.ValidateScopes(in.Scopes)
	if err != nil {
		return nil, err
	}
	if slices.Contains(scopes, identity.ScopeAdmin) && !p.IsAdmin {
		return nil, errs.Invalid("scopes", "the admin scope needs a platform administrator")
	}
	if !p.HasScope(identity.ScopeAll) {
		return nil, errs.Forbidden("a token with limited scopes cannot create tokens")
	}
	workspaces := slices.Compact(slices.Sorted(slices.Values(in.WorkspaceIDs)))
	if len(workspaces) == 0 {
		workspaces = p.Workspaces // a restricted token only mints restricted ones
	}
	for i, id := range workspaces {
		if _, err := s.Authorize(ctx, p, id, identity.RoleMember); err != nil {
			return nil, errs.Invalid("workspace_ids", "item %d: workspace %d is not one of yours or not reachable with this token", i, id)
		}
	}
	exp, err := s.expiry(in.ExpiresInDays)
	if err != nil {
		return nil, err
	}
	secret := identity.NewSecret(identity.TokenPAT)
	tok := identity.Token{
		UserID: p.UserID, Kind: identity.TokenPAT, Name: strings.TrimSpace(in.Name),
		Hash: identity.HashSecret(secret), Hint: identity.SecretHint(secret),
		Scopes: scopes, WorkspaceIDs: workspaces, ExpiresAt: exp,
	}
	if err := s.tokens.CreateToken(ctx, &tok); err != nil {
		return nil, fmt.Errorf("create token: %w", err)
	}
	return &NewToken{Secret: secret, Token: tok}, nil
}

func (s *Service) expiry(days *int) (*time.Time, error) {
	d := 90
	if days != nil {
		d = *days
	}
	if d == 0 {
		return nil, nil
	}
	life := time.Duration(d) * 24 * time.Hour
	if d < 0 || life > maxTokenLifetime {
		return nil, errs.Invalid("expires_in_days", "must be 0 (never) or between 1 and 366, got %d", d)
	}
	t := s.now().Add(life).UTC()
	return &t, nil
}

// ListTokens lists the caller's personal access tokens, without secrets.
func (s *Service) ListTokens(ctx context.Context, p identity.Principal) ([]identity.Token, error) {
	return s.tokens.ListTokensOfUser(ctx, p.UserID, identity.TokenPAT)
}

// RevokeToken revokes one of the caller's tokens; another user's token is
// ErrNotFound.
func (s *Service) RevokeToken(ctx context.Context, p identity.Principal, id int64) error {
	if err := s.tokens.RevokeToken(ctx, p.UserID, id, s.now()); err != nil {
		return fmt.Errorf("revoke token %s: %w", strconv.FormatInt(id, 10), err)
	}
	return nil
}
