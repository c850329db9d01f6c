package identity

import (
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"slices"
	"time"

	"github.com/pergola-ai/pergola/domain/errs"
)

// TokenKind separates personal access tokens from console sessions.
type TokenKind string

// Token kinds.
const (
	TokenPAT     TokenKind = "pat"
	TokenSession TokenKind = "session"
)

// Scopes a personal access token can carry. ScopeAll grants everything the
// user may do.
const (
	ScopeAll       = "all"
	ScopeBot       = "bot"
	ScopeChat      = "chat"
	ScopeWorkflow  = "workflow"
	ScopePlugin    = "plugin"
	ScopeTable     = "table"
	ScopeWorkspace = "workspace"
	ScopeAdmin     = "admin"
	ScopeKnowledge = "knowledge"
	ScopeUsage     = "usage" // GET /api/usage: token and run counts
)

var knownScopes = []string{ScopeAll, ScopeBot, ScopeChat, ScopeWorkflow, ScopePlugin, ScopeTable, ScopeWorkspace, ScopeAdmin, ScopeKnowledge, ScopeUsage}

// Token is a stored credential. Only the SHA-256 hash of the secret is kept:
// with 256 random bits a fast hash is as safe as a slow one, and it lets a
// request find its token with one indexed lookup.
type Token struct {
	ID           int64
	UserID       int64
	Kind         TokenKind
	Name         string
	Hash         string // hex SHA-256 of the secret
	Hint         string // the first characters of the secret, for display
	Scopes       []string
	WorkspaceIDs []int64 // empty: every workspace the user belongs to
	ExpiresAt    *time.Time
	RevokedAt    *time.Time
	LastUsedAt   *time.Time
	CreatedAt    time.Time
}

// NewSecret returns a fresh token secret: a prefix and 256 random bits.
func NewSecret(kind TokenKind) string {
	var b [32]byte
	if _, err := rand.Read(b[:]); err != nil {
		panic("identity: crypto/rand failed: " + err.Error()) // the OS is broken; nothing sane to do
	}
	prefix := "pat_"
	if kind == TokenSession {
		prefix = "ses_"
	}
	return prefix + base64.RawURLEncoding.EncodeToString(b[:])
}

// HashSecret returns the hex SHA-256 under which a secret is stored.
func HashSecret(secret string) string {
	sum := sha256.Sum256([]byte(secret))
	return hex.EncodeToString(sum[:])
}

// SecretHint returns the displayable start of a secret.
func SecretHint(secret string) string {
	if len(secret) <= 8 {
		return secret[:min(len(secret), 4)] + "…"
	}
	return secret[:8] + "…"
}

// ValidateScopes checks requested scopes; none means ScopeAll.
func ValidateScopes(scopes []string) ([]string, error) {
	if len(scopes) == 0 {
		return []string{ScopeAll}, nil
	}
	for i, s := range scopes {
		if !slices.Contains(knownScopes, s) {
			return nil, errs.Invalid("scopes", "item %d: unknown scope %q; known scopes: %v", i, s, knownScopes)
		}
	}
	return slices.Compact(slices.Sorted(slices.Values(scopes))), nil
}

// Usable reports why a token cannot be used at now, or nil.
func (t *Token) Usable(now time.Time) error {
	if t.RevokedAt != nil {
		return errs.Unauthenticated("token was revoked; %s", NewTokenHint)
	}
	if t.ExpiresAt != nil && !now.Before(*t.ExpiresAt) {
		return errs.Unauthenticated("token expired at %s; %s", t.ExpiresAt.UTC().Format(time.RFC3339), NewTokenHint)
	}
	return nil
}

// NewTokenHint says how to get a token that works; refused tokens end
// their message with it.
const NewTokenHint = "get a new personal access token in the console, with POST /api/tokens, " +
	"or on the server with `pergola token --email <your e-mail>`"
