package identity

import (
	"slices"

	"github.com/pergola-ai/pergola/domain/errs"
)

// Principal is the authenticated caller of one request.
type Principal struct {
	UserID     int64
	IsAdmin    bool
	TokenID    int64
	TokenKind  TokenKind
	Scopes     []string
	Workspaces []int64 // the token's workspace restriction; empty: none
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

// TokenAllowsWorkspace reports whether the token may touch workspace id.
// Membership is checked separately.
func (p Principal) TokenAllowsWorkspace(id int64) bool {
	return len(p.Workspaces) == 0 || slices.Contains(p.Workspaces, id)
}
