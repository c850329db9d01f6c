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

// CreateToken issues a personal access token to the caller, no broader than
// the caller's own token: only a token with the all scope may create one
// (ErrForbidden otherwise); workspace restrictions must name workspaces the
// caller belongs to and its token reaches (a restricted token mints only
// restricted ones); the admin scope needs a platform administrator and an
// unrestricted token (ErrInvalid with workspace_ids); and a
// token made with a personal access token does not outlive it.
func (s *Service) CreateToken(ctx context.Context, p identity.Principal, in CreateTokenInput) (*NewToken, error) {
	if err := p.ManagesTokens(); err != nil {
		return nil, err
	}
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
	workspaces := slices.Compact(slices.Sorted(slices.Values(in.WorkspaceIDs)))
	if len(workspaces) == 0 {
		workspaces = p.Workspaces // a restricted token only mints restricted ones
	}
	if slices.Contains(scopes, identity.ScopeAdmin) && len(workspaces) > 0 {
		return nil, errs.Invalid("workspace_ids", "cannot go with the admin scope: a token restricted to workspaces is never a platform administrator; drop one of them")
	}
	for i, id := range workspaces {
		if _, err := s.Authorize(ctx, p, id, identity.RoleMember); err != nil {
			return nil, errs.Invalid("workspace_ids", "item %d: workspace %d is not one of yours or not reachable with this token", i, id)
		}
	}
	exp, err := s.expiryWithin(p, in.ExpiresInDays)
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

// ListTokens lists the caller's personal access tokens, without secrets:
// those no broader than the caller's token (identity.Principal.Covers). A
// token without the all scope gets ErrForbidden.
func (s *Service) ListTokens(ctx context.Context, p identity.Principal) ([]identity.Token, error) {
	if err := p.ManagesTokens(); err != nil {
		return nil, err
	}
	all, err := s.tokens.ListTokensOfUser(ctx, p.UserID, identity.TokenPAT)
	if err != nil {
		return nil, fmt.Errorf("list tokens: %w", err)
	}
	out := all[:0]
	for _, t := range all {
		if p.Covers(t) {
			out = append(out, t)
		}
	}
	return out, nil
}

// RevokeToken revokes one of the caller's tokens; another user's token is
// ErrNotFound. A token without the all scope, or a workspace-restricted
// token revoking a broader one, gets ErrForbidden.
func (s *Service) RevokeToken(ctx context.Context, p identity.Principal, id int64) error {
	if err := s.mayRevoke(ctx, p, id); err != nil {
		return err
	}
	if err := s.tokens.RevokeToken(ctx, p.UserID, id, s.now()); err != nil {
		return fmt.Errorf("revoke token %s: %w", strconv.FormatInt(id, 10), err)
	}
	return nil
}

// mayRevoke checks that the caller's token may revoke token id. A
// restricted caller only reaches the personal access tokens it covers; an
// unrestricted one reaches every token of its user, sessions included.
func (s *Service) mayRevoke(ctx context.Context, p identity.Principal, id int64) error {
	if err := p.ManagesTokens(); err != nil {
		return err
	}
	if len(p.Workspaces) == 0 {
		return nil
	}
	all, err := s.tokens.ListTokensOfUser(ctx, p.UserID, identity.TokenPAT)
	if err != nil {
		return fmt.Errorf("revoke token %d: %w", id, err)
	}
	i := slices.IndexFunc(all, func(t identity.Token) bool { return t.ID == id })
	switch {
	case i < 0:
		return errs.NotFound("token", strconv.FormatInt(id, 10))
	case !p.Covers(all[i]):
		return errs.Forbidden("token %d reaches more workspaces than the token making this call (restricted to workspaces %v); "+
			"revoke it with an unrestricted token or from the console", id, p.Workspaces)
	}
	return nil
}

// expiryWithin is expiry, kept within the expiry of the caller's personal
// access token: by default the new token expires with it, and asking for
// a later expiry (or none) is refused. A console session, the user signed
// in with a password, is not such a cap.
func (s *Service) expiryWithin(p identity.Principal, days *int) (*time.Time, error) {
	exp, err := s.expiry(days)
	if err != nil || p.TokenKind != identity.TokenPAT || p.ExpiresAt == nil {
		return exp, err
	}
	limit := p.ExpiresAt.UTC()
	switch {
	case days == nil && (exp == nil || exp.After(limit)):
		return &limit, nil
	case exp == nil || exp.After(limit):
		left := int(limit.Sub(s.now()).Hours() / 24)
		return nil, errs.Invalid("expires_in_days", "must not outlive the token making this call, which expires at %s (%d full days from now); ask for at most %d",
			limit.Format(time.RFC3339), left, left)
	}
	return exp, nil
}
