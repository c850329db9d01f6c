package sqlstore

import (
	"context"
	"database/sql"
	"fmt"
	"slices"
	"time"

	"gorm.io/gorm"
)

// migrateLock is the MySQL named lock that lets one process migrate at a
// time; the others wait up to migrateLockWait seconds.
const (
	migrateLock     = "pergola_migrate"
	migrateLockWait = 30
)

// schemaMigration records an applied migration. Frozen: its table is read
// before any migration runs.
type schemaMigration struct {
	Version   int       `gorm:"primaryKey;autoIncrement:false"`
	Name      string    `gorm:"size:200;not null"`
	AppliedAt time.Time `gorm:"not null;precision:3"`
}

func (schemaMigration) TableName() string { return "schema_migrations" }

// MigrationState is one migration as `pergola migrate --status` shows it.
type MigrationState struct {
	Version int
	Name    string
	// AppliedAt is when the migration ran; nil while it is pending.
	AppliedAt *time.Time
	// Unknown marks a migration recorded in the database that this binary
	// does not know: the database was migrated by a newer release.
	Unknown bool
}

func (m migration) label() string { return fmt.Sprintf("%04d_%s", m.Version, m.Name) }

// Migrate applies the pending migrations in order and returns their labels
// ("0001_identity_and_models"); it returns none when the schema is current.
// Processes starting together are safe: on MySQL they take turns under a
// named lock, on SQLite under the database write lock, and each migration
// is skipped by whoever finds it already recorded. It fails when the lock
// is not granted within 30 s or a migration fails; the migrations applied
// before the failure stay applied and are returned.
func (db *DB) Migrate(ctx context.Context) ([]string, error) {
	if db.upToDate(ctx) {
		return nil, nil
	}
	unlock, err := db.lockMigrations(ctx)
	if err != nil {
		return nil, err
	}
	defer unlock()
	if err := db.createMigrationTable(ctx); err != nil {
		return nil, err
	}
	var applied []string
	for _, m := range migrations() {
		ran, err := db.apply(ctx, m)
		if err != nil {
			return applied, fmt.Errorf("sqlstore: migration %s: %w", m.label(), err)
		}
		if ran {
			db.log.InfoContext(ctx, "applied migration", "migration", m.label())
			applied = append(applied, m.label())
		}
	}
	return applied, nil
}

// upToDate reports whether every migration this binary knows is recorded,
// in one query and without the lock: most starts find the schema current,
// and checking each migration in a transaction of its own costs a dozen
// round trips (tens of ms on MySQL). Any doubt (no table yet, an error) answers
// false, and the locked path decides. It reads through database/sql so a
// missing table on a fresh database is not logged as a failed statement.
func (db *DB) upToDate(ctx context.Context) bool {
	rows, err := db.sql.QueryContext(ctx, "SELECT version FROM schema_migrations")
	if err != nil {
		return false
	}
	defer rows.Close()
	recorded := map[int]bool{}
	for rows.Next() {
		var v int
		if rows.Scan(&v) != nil {
			return false
		}
		recorded[v] = true
	}
	if rows.Err() != nil {
		return false
	}
	for _, m := range migrations() {
		if !recorded[m.Version] {
			return false
		}
	}
	return true
}

// apply runs m unless it is recorded already, and reports whether it ran.
func (db *DB) apply(ctx context.Context, m migration) (ran bool, err error) {
	err = db.gorm.WithContext(ctx).Transaction(func(tx *gorm.DB) error {
		var n int64
		if err := tx.Model(&schemaMigration{}).Where("version = ?", m.Version).Count(&n).Error; err != nil {
			return err
		}
		if n > 0 {
			return nil
		}
		if err := m.Up(tx); err != nil {
			return err
		}
		ran = true
		return tx.Create(&schemaMigration{Version: m.Version, Name: m.Name, AppliedAt: db.timestamp()}).Error
	})
	return ran, err
}

func (db *DB) createMigrationTable(ctx context.Context) error {
	err := db.gorm.WithContext(ctx).Transaction(func(tx *gorm.DB) error {
		return createTables(tx, &schemaMigration{})
	})
	if err != nil {
		return fmt.Errorf("sqlstore: create schema_migrations: %w", err)
	}
	return nil
}

// lockMigrations takes the MySQL migration lock on a connection of its own,
// held until the returned func runs. SQLite needs no lock of this kind:
// every migration transaction begins IMMEDIATE and so holds the write lock.
func (db *DB) lockMigrations(ctx context.Context) (unlock func(), err error) {
	if db.dialect != DialectMySQL {
		return func() {}, nil
	}
	conn, err := db.sql.Conn(ctx)
	if err != nil {
		return nil, fmt.Errorf("sqlstore: migration lock: %w", err)
	}
	var got sql.NullInt64
	err = conn.QueryRowContext(ctx, "SELECT GET_LOCK(?, ?)", migrateLock, migrateLockWait).Scan(&got)
	if err != nil || got.Int64 != 1 {
		_ = conn.Close()
		if err == nil {
			err = fmt.Errorf("another process has held it for over %d s", migrateLockWait)
		}
		return nil, fmt.Errorf("sqlstore: migration lock %q: %w", migrateLock, err)
	}
	return func() {
		var released sql.NullInt64
		rctx := context.WithoutCancel(ctx)
		if err := conn.QueryRowContext(rctx, "SELECT RELEASE_LOCK(?)", migrateLock).Scan(&released); err != nil {
			db.log.WarnContext(ctx, "release migration lock", "err", err) // closing the connection releases it anyway
		}
		_ = conn.Close()
	}, nil
}

// MigrationStatus lists the migrations this binary knows, applied or
// pending, then any recorded ones it does not know, by version.
func (db *DB) MigrationStatus(ctx context.Context) ([]MigrationState, error) {
	recorded := map[int]schemaMigration{}
	gdb := db.gorm.WithContext(ctx)
	if gdb.Migrator().HasTable(&schemaMigration{}) {
		var rows []schemaMigration
		if err := gdb.Order("version").Find(&rows).Error; err != nil {
			return nil, fmt.Errorf("sqlstore: read schema_migrations: %w", err)
		}
		for _, r := range rows {
			recorded[r.Version] = r
		}
	}
	var out []MigrationState
	for _, m := range migrations() {
		st := MigrationState{Version: m.Version, Name: m.Name}
		if r, ok := recorded[m.Version]; ok {
			st.AppliedAt = utcPtr(&r.AppliedAt)
			delete(recorded, m.Version)
		}
		out = append(out, st)
	}
	for _, r := range recorded {
		out = append(out, MigrationState{Version: r.Version, Name: r.Name, AppliedAt: utcPtr(&r.AppliedAt), Unknown: true})
	}
	slices.SortFunc(out, func(a, b MigrationState) int { return a.Version - b.Version })
	return out, nil
}
