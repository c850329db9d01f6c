package sqlstore

import (
	"context"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/pergola-ai/pergola/domain/errs"
	"github.com/pergola-ai/pergola/domain/identity"
)

// UserStore keeps users in the users table. E-mail addresses are unique and
// compared without regard to case, on both dialects.
type UserStore struct{ db *DB }

var _ identity.UserStore = (*UserStore)(nil)

// Users returns the store of users.
func (db *DB) Users() *UserStore { return &UserStore{db: db} }

type userRow struct {
	ID           int64 `gorm:"primaryKey;autoIncrement:false"`
	Email        string
	Name         string
	PasswordHash string
	IsAdmin      bool
	Disabled     bool
	CreatedAt    time.Time
	UpdatedAt    time.Time
}

func (userRow) TableName() string { return "users" }

func userToRow(u *identity.User) *userRow {
	return &userRow{
		ID: u.ID, Email: u.Email, Name: u.Name, PasswordHash: u.PasswordHash,
		IsAdmin: u.IsAdmin, Disabled: u.Disabled,
		CreatedAt: dbTime(u.CreatedAt), UpdatedAt: dbTime(u.UpdatedAt),
	}
}

func userFromRow(r *userRow) *identity.User {
	return &identity.User{
		ID: r.ID, Email: r.Email, Name: r.Name, PasswordHash: r.PasswordHash,
		IsAdmin: r.IsAdmin, Disabled: r.Disabled,
		CreatedAt: r.CreatedAt.UTC(), UpdatedAt: r.UpdatedAt.UTC(),
	}
}

func userNotFound(id int64) error { return errs.NotFound("user", strconv.FormatInt(id, 10)) }

// userConflict names the unique key a write of u violated.
func userConflict(u *identity.User, key string) error {
	if strings.Contains(key, "email") {
		return errs.Conflict("email %s is already registered", u.Email)
	}
	return errs.Conflict("user %d already exists", u.ID)
}

// CreateUser stores u, assigning its ID when zero and its timestamps. It
// returns errs.ErrConflict when the e-mail is taken.
func (s *UserStore) CreateUser(ctx context.Context, u *identity.User) error {
	row := userToRow(u)
	if row.ID == 0 {
		row.ID = s.db.ids.Next()
	}
	row.CreatedAt = s.db.timestamp()
	row.UpdatedAt = row.CreatedAt
	if err := s.db.gorm.WithContext(ctx).Create(row).Error; err != nil {
		if key, dup := duplicateKey(err); dup {
			return userConflict(u, key)
		}
		return fmt.Errorf("sqlstore: create user: %w", err)
	}
	*u = *userFromRow(row)
	return nil
}

// GetUser returns the user with id, or errs.ErrNotFound.
func (s *UserStore) GetUser(ctx context.Context, id int64) (*identity.User, error) {
	return s.get(ctx, userNotFound(id), "id = ?", id)
}

// GetUserByEmail returns the user with email, whatever its case, or
// errs.ErrNotFound.
func (s *UserStore) GetUserByEmail(ctx context.Context, email string) (*identity.User, error) {
	return s.get(ctx, errs.NotFound("user with email", email), "email = ?", email)
}

func (s *UserStore) get(ctx context.Context, missing error, where string, arg any) (*identity.User, error) {
	var row userRow
	if err := s.db.gorm.WithContext(ctx).Where(where, arg).Take(&row).Error; err != nil {
		if isNoRow(err) {
			return nil, missing
		}
		return nil, fmt.Errorf("sqlstore: get user: %w", err)
	}
	return userFromRow(&row), nil
}

// ListUsers returns one page of users in ID order and the number of users.
func (s *UserStore) ListUsers(ctx context.Context, p identity.Page) ([]identity.User, int64, error) {
	gdb := s.db.gorm.WithContext(ctx)
	var total int64
	if err := gdb.Model(&userRow{}).Count(&total).Error; err != nil {
		return nil, 0, fmt.Errorf("sqlstore: count users: %w", err)
	}
	var rows []userRow
	if err := page(gdb.Order("id"), p).Find(&rows).Error; err != nil {
		return nil, 0, fmt.Errorf("sqlstore: list users: %w", err)
	}
	users := make([]identity.User, len(rows))
	for i := range rows {
		users[i] = *userFromRow(&rows[i])
	}
	return users, total, nil
}

// UpdateUser runs fn on the user with id inside a transaction, with the row
// locked, and saves the result; ID and CreatedAt are kept, UpdatedAt is set.
// It returns errs.ErrNotFound for an unknown id, fn's error unchanged (and
// writes nothing) when fn fails, and errs.ErrConflict when the new e-mail
// is taken.
func (s *UserStore) UpdateUser(ctx context.Context, id int64, fn func(*identity.User) error) (*identity.User, error) {
	var changed *identity.User
	row, err := updateLocked(ctx, s.db, "update user", func() error { return userNotFound(id) }, func(r *userRow) error {
		u := userFromRow(r)
		if err := fn(u); err != nil {
			return err
		}
		u.ID, u.CreatedAt, u.UpdatedAt = r.ID, r.CreatedAt, s.db.timestamp()
		changed = u
		*r = *userToRow(u)
		return nil
	}, "id = ?", id)
	if key, dup := duplicateKey(err); dup {
		return nil, userConflict(changed, key)
	}
	if err != nil {
		return nil, err
	}
	return userFromRow(row), nil
}

// CountUsers returns the number of users.
func (s *UserStore) CountUsers(ctx context.Context) (int64, error) {
	var n int64
	if err := s.db.gorm.WithContext(ctx).Model(&userRow{}).Count(&n).Error; err != nil {
		return 0, fmt.Errorf("sqlstore: count users: %w", err)
	}
	return n, nil
}
