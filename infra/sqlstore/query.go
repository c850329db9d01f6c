package sqlstore

import (
	"context"
	"fmt"
	"reflect"
	"time"

	"gorm.io/gorm"
	"gorm.io/gorm/clause"

	"github.com/pergola-ai/pergola/domain/identity"
)

// forUpdate locks the rows a query reads until the transaction ends. On
// SQLite the dialect drops the clause, and the immediate transaction holds
// the database's only write lock instead.
func forUpdate(tx *gorm.DB) *gorm.DB {
	return tx.Clauses(clause.Locking{Strength: clause.LockingStrengthUpdate})
}

// page applies p to q; a Size of zero or less means every row.
func page(q *gorm.DB, p identity.Page) *gorm.DB {
	if p.Size <= 0 {
		return q
	}
	return q.Offset(p.Offset()).Limit(p.Size)
}

// updateLocked reads the row of type R matching where, locked, hands it to
// change and writes every column of what change leaves, in one
// transaction. It returns missing() when there is no such row, change's own
// error when change fails (nothing is written), and other errors wrapped
// with "sqlstore: "+op.
func updateLocked[R any](ctx context.Context, db *DB, op string, missing func() error, change func(*R) error, where string, args ...any) (*R, error) {
	return updateLockedAfter(ctx, db, op, nil, missing, change, where, args...)
}

// updateLockedAfter is updateLocked that first runs before (when not nil)
// in the same transaction, so more writes commit or roll back with it.
func updateLockedAfter[R any](ctx context.Context, db *DB, op string, before func(*gorm.DB) error, missing func() error,
	change func(*R) error, where string, args ...any) (*R, error) {
	var row R
	var own error // missing's or change's error, returned as it is
	err := db.gorm.WithContext(ctx).Transaction(func(tx *gorm.DB) error {
		if before != nil {
			if err := before(tx); err != nil {
				return err
			}
		}
		err := forUpdate(tx).Where(where, args...).Take(&row).Error
		if isNoRow(err) {
			own = missing()
			return own
		}
		if err != nil {
			return err
		}
		before := updatedAt(&row)
		if own = change(&row); own != nil {
			return own
		}
		return keepUpdatedAt(tx, before, updatedAt(&row)).Model(&row).Select("*").Where(where, args...).Updates(&row).Error
	})
	switch {
	case err == nil:
		return &row, nil
	case err == own:
		return nil, err
	default:
		return nil, fmt.Errorf("sqlstore: %s: %w", op, err)
	}
}

// updatedAt returns the UpdatedAt field of a row, or the zero time.
func updatedAt(row any) time.Time {
	f := reflect.ValueOf(row).Elem().FieldByName("UpdatedAt")
	if !f.IsValid() {
		return time.Time{}
	}
	t, _ := f.Interface().(time.Time)
	return t
}

// keepUpdatedAt makes gorm write the UpdatedAt a change set, instead of
// its own later clock reading (the caller returns the time it set, which
// then differed from the stored one whenever a millisecond passed between
// the two); a change that did not set it gets gorm's.
func keepUpdatedAt(tx *gorm.DB, before, after time.Time) *gorm.DB {
	if after.Equal(before) {
		return tx
	}
	return tx.Session(&gorm.Session{NowFunc: func() time.Time { return after }})
}
