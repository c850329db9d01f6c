package sqlstore

import (
	"context"
	"encoding/json"
	"fmt"
	"strconv"
	"strings"
	"time"

	"gorm.io/gorm"

	"github.com/pergola-ai/pergola/domain/errs"
	"github.com/pergola-ai/pergola/domain/identity"
)

// TokenStore keeps personal access tokens and sessions in the tokens table,
// by the hash of their secret. Every write names the token's user or ID.
type TokenStore struct{ db *DB }

var _ identity.TokenStore = (*TokenStore)(nil)

// Tokens returns the store of tokens.
func (db *DB) Tokens() *TokenStore { return &TokenStore{db: db} }

type tokenRow struct {
	ID           int64 `gorm:"primaryKey;autoIncrement:false"`
	UserID       int64
	Kind         string
	Name         string
	Hash         string
	Hint         string
	Scopes       string // JSON array
	WorkspaceIDs string // JSON array
	ExpiresAt    *time.Time
	RevokedAt    *time.Time
	LastUsedAt   *time.Time
	CreatedAt    time.Time
}

func (tokenRow) TableName() string { return "tokens" }

func tokenToRow(t *identity.Token) (*tokenRow, error) {
	scopes, err := jsonList(t.Scopes)
	if err != nil {
		return nil, err
	}
	workspaces, err := jsonList(t.WorkspaceIDs)
	if err != nil {
		return nil, err
	}
	return &tokenRow{
		ID: t.ID, UserID: t.UserID, Kind: string(t.Kind), Name: t.Name, Hash: t.Hash, Hint: t.Hint,
		Scopes: scopes, WorkspaceIDs: workspaces,
		ExpiresAt: dbTimePtr(t.ExpiresAt), RevokedAt: dbTimePtr(t.RevokedAt), LastUsedAt: dbTimePtr(t.LastUsedAt),
		CreatedAt: dbTime(t.CreatedAt),
	}, nil
}

func tokenFromRow(r *tokenRow) (*identity.Token, error) {
	t := &identity.Token{
		ID: r.ID, UserID: r.UserID, Kind: identity.TokenKind(r.Kind), Name: r.Name, Hash: r.Hash, Hint: r.Hint,
		ExpiresAt: utcPtr(r.ExpiresAt), RevokedAt: utcPtr(r.RevokedAt), LastUsedAt: utcPtr(r.LastUsedAt),
		CreatedAt: r.CreatedAt.UTC(),
	}
	if err := fromJSONList(r.Scopes, &t.Scopes); err != nil {
		return nil, fmt.Errorf("sqlstore: token %d scopes: %w", r.ID, err)
	}
	if err := fromJSONList(r.WorkspaceIDs, &t.WorkspaceIDs); err != nil {
		return nil, fmt.Errorf("sqlstore: token %d workspace_ids: %w", r.ID, err)
	}
	return t, nil
}

// jsonList encodes a list as a JSON array; nil becomes "[]".
func jsonList[T any](list []T) (string, error) {
	if len(list) == 0 {
		return "[]", nil
	}
	b, err := json.Marshal(list)
	return string(b), err
}

// fromJSONList decodes a JSON array; an empty one leaves *list nil.
func fromJSONList[T any](s string, list *[]T) error {
	if s == "" || s == "[]" {
		return nil
	}
	return json.Unmarshal([]byte(s), list)
}

func tokenNotFound(id int64) error { return errs.NotFound("token", strconv.FormatInt(id, 10)) }

// CreateToken stores t, assigning its ID when zero and its CreatedAt. It
// returns errs.ErrNotFound when t.UserID is not a user and errs.ErrConflict
// when the hash is already stored.
func (s *TokenStore) CreateToken(ctx context.Context, t *identity.Token) error {
	row, err := tokenToRow(t)
	if err != nil {
		return fmt.Errorf("sqlstore: create token: %w", err)
	}
	if row.ID == 0 {
		row.ID = s.db.ids.Next()
	}
	row.CreatedAt = s.db.timestamp()
	err = s.db.gorm.WithContext(ctx).Create(row).Error
	if key, dup := duplicateKey(err); dup {
		if strings.Contains(key, "hash") {
			return errs.Conflict("a token with this secret already exists")
		}
		return errs.Conflict("token %d already exists", row.ID)
	}
	if isMissingParent(err) {
		return userNotFound(row.UserID)
	}
	if err != nil {
		return fmt.Errorf("sqlstore: create token: %w", err)
	}
	t.ID, t.CreatedAt = row.ID, row.CreatedAt
	t.ExpiresAt, t.RevokedAt, t.LastUsedAt = row.ExpiresAt, row.RevokedAt, row.LastUsedAt
	return nil
}

// GetTokenByHash returns the token whose secret hashes to hash, whatever
// its state, or errs.ErrNotFound; the caller checks Usable.
func (s *TokenStore) GetTokenByHash(ctx context.Context, hash string) (*identity.Token, error) {
	var row tokenRow
	if err := s.db.gorm.WithContext(ctx).Where("hash = ?", hash).Take(&row).Error; err != nil {
		if isNoRow(err) {
			return nil, errs.NotFound("token", "with this secret")
		}
		return nil, fmt.Errorf("sqlstore: get token: %w", err)
	}
	return tokenFromRow(&row)
}

// ListTokensOfUser returns userID's tokens of kind, or of every kind when
// kind is empty, oldest first, revoked and expired ones included.
func (s *TokenStore) ListTokensOfUser(ctx context.Context, userID int64, kind identity.TokenKind) ([]identity.Token, error) {
	q := s.db.gorm.WithContext(ctx).Where("user_id = ?", userID)
	if kind != "" {
		q = q.Where("kind = ?", string(kind))
	}
	var rows []tokenRow
	if err := q.Order("id").Find(&rows).Error; err != nil {
		return nil, fmt.Errorf("sqlstore: list tokens: %w", err)
	}
	out := make([]identity.Token, len(rows))
	for i := range rows {
		t, err := tokenFromRow(&rows[i])
		if err != nil {
			return nil, err
		}
		out[i] = *t
	}
	return out, nil
}

// RevokeToken marks token tokenID of userID revoked at at; revoking it
// again keeps the first time. It returns errs.ErrNotFound when userID has no
// such token, so nobody can revoke another user's token.
func (s *TokenStore) RevokeToken(ctx context.Context, userID, tokenID int64, at time.Time) error {
	res := s.db.gorm.WithContext(ctx).Model(&tokenRow{}).
		Where("id = ? AND user_id = ?", tokenID, userID).
		Update("revoked_at", gorm.Expr("COALESCE(revoked_at, ?)", dbTime(at)))
	if res.Error != nil {
		return fmt.Errorf("sqlstore: revoke token: %w", res.Error)
	}
	if res.RowsAffected == 0 {
		return tokenNotFound(tokenID)
	}
	return nil
}

// TouchToken records that token tokenID was used at at. It returns
// errs.ErrNotFound for an unknown token.
func (s *TokenStore) TouchToken(ctx context.Context, tokenID int64, at time.Time) error {
	res := s.db.gorm.WithContext(ctx).Model(&tokenRow{}).Where("id = ?", tokenID).Update("last_used_at", dbTime(at))
	if res.Error != nil {
		return fmt.Errorf("sqlstore: touch token: %w", res.Error)
	}
	if res.RowsAffected == 0 {
		return tokenNotFound(tokenID)
	}
	return nil
}
