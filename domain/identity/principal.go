package identity

import (
	"slices"
	"time"

	"github.com/pergola-ai/pergola/domain/errs"
)

// Principal is the authenticated caller of one request.
type Principal struct {
	UserID int64
	// IsAdmin: the caller acts as a platform administrator. It is true only
	// for an administrator's token that is not restricted to workspaces: a
	// restricted token is never platform-wide, so it cannot use the admin
	// API, read every workspace or create users (Authenticate sets it).
	IsAdmin    bool
	TokenID    int64
	TokenKind  TokenKind
	Scopes     []string
	Workspaces []int64    // the token's workspace restriction; empty: none
	ExpiresAt  *time.Time // when the token expires; nil: never
}

// HasScope reports whether the caller's token grants scope.
func (p Principal) HasScope(scope string) bool {
	return slices.Contains(p.Scopes, ScopeAll) || slices.Contains(p.Scopes, scope)
}

// RequireScope fails with ErrForbidden when the token lacks scope.
func (p Principal) RequireScope(scope string) error {
	if !p.HasScope(scope) {
		return errs.Forbidden("this token lacks the %q scope", scope)
	}
	return nil
}

// HasAnyScope reports whether the caller's token grants one of scopes;
// none means any token will do.
func (p Principal) HasAnyScope(scopes ...string) bool {
	return len(scopes) == 0 || slices.ContainsFunc(scopes, p.HasScope)
}

// TokenAllowsWorkspace reports whether the token may touch workspace id.
// Membership is checked separately.
func (p Principal) TokenAllowsWorkspace(id int64) bool {
	return len(p.Workspaces) == 0 || slices.Contains(p.Workspaces, id)
}

// ManagesTokens fails with ErrForbidden unless the caller's token may list,
// create and revoke tokens at all: only a token with the all scope may.
func (p Principal) ManagesTokens() error {
	if !slices.Contains(p.Scopes, ScopeAll) {
		return errs.Forbidden("a token with limited scopes %v cannot manage tokens; use a token with the %q scope", p.Scopes, ScopeAll)
	}
	return nil
}

// Covers reports whether t is no broader than the caller's token, so that
// the caller may see and revoke it: an unrestricted caller covers every
// token of its user, a caller restricted to some workspaces only tokens
// restricted to some of those same workspaces (an unrestricted token
// reaches every workspace, so it is broader). Scopes need no check: only a
// token with the all scope manages tokens (ManagesTokens).
func (p Principal) Covers(t Token) bool {
	if len(p.Workspaces) == 0 {
		return true
	}
	if len(t.WorkspaceIDs) == 0 {
		return false
	}
	for _, id := range t.WorkspaceIDs {
		if !slices.Contains(p.Workspaces, id) {
			return false
		}
	}
	return true
}
