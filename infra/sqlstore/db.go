// Package sqlstore keeps Pergola's platform data in a SQL database through
// gorm: SQLite for the embedded default, MySQL 8 or MariaDB in production.
//
// One DB is opened per process; its stores (Users, Workspaces, Tokens,
// Models) implement the domain store interfaces. Transactions never leave
// this package: a store method either runs one statement or opens and
// finishes its own transaction.
package sqlstore

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"log/slog"
	"time"

	"gorm.io/gorm"

	"github.com/pergola-ai/pergola/infra/idgen"
)

// Cipher seals secrets before they are stored and opens them after they are
// read. *secret.Box implements it.
type Cipher interface {
	Encrypt(plain string) (string, error)
	Decrypt(sealed string) (string, error)
}

// Config says which database to open and what the stores need.
type Config struct {
	// DSN is a MySQL/MariaDB DSN in go-sql-driver form, e.g.
	// "pergola:pw@tcp(db:3306)/pergola". Empty selects SQLite.
	DSN string
	// SQLitePath is the database file used when DSN is empty. Its parent
	// directory is created when missing.
	SQLitePath string
	// Cipher seals stored secrets such as model API keys. It may be nil for
	// commands that never touch them (e.g. migrate); stores then refuse to
	// write or read a non-empty secret.
	Cipher Cipher
	// IDs assigns row IDs; nil means a new generator.
	IDs *idgen.Generator
	// Logger receives slow and, at debug level, all SQL; nil discards.
	Logger *slog.Logger
}

// Dialect names.
const (
	DialectSQLite = "sqlite"
	DialectMySQL  = "mysql"
)

// slowQuery is the duration from which a statement is logged at warn level.
const slowQuery = 200 * time.Millisecond

// DB is an open platform database. It is safe for concurrent use.
type DB struct {
	gorm    *gorm.DB
	sql     *sql.DB
	dialect string
	cipher  Cipher
	ids     *idgen.Generator
	log     *slog.Logger
	now     func() time.Time
}

// Open connects to the database cfg names and checks that it answers. It
// does not migrate; call Migrate. It fails when the DSN cannot be parsed
// or names no database, or when the database cannot be reached.
func Open(ctx context.Context, cfg Config) (*DB, error) {
	if cfg.Logger == nil {
		cfg.Logger = slog.New(slog.DiscardHandler)
	}
	if cfg.IDs == nil {
		cfg.IDs = idgen.New()
	}
	db := &DB{cipher: cfg.Cipher, ids: cfg.IDs, log: cfg.Logger, now: time.Now}
	var err error
	if cfg.DSN != "" {
		db.dialect = DialectMySQL
		db.sql, db.gorm, err = openMySQL(cfg.DSN, db.gormConfig())
	} else {
		db.dialect = DialectSQLite
		db.sql, db.gorm, err = openSQLite(cfg.SQLitePath, db.gormConfig())
	}
	if err != nil {
		return nil, err
	}
	if err := db.Ping(ctx); err != nil {
		_ = db.sql.Close()
		return nil, err
	}
	return db, nil
}

func (db *DB) gormConfig() *gorm.Config {
	return &gorm.Config{
		Logger:                 newGormLogger(db.log, slowQuery),
		NowFunc:                db.timestamp,
		SkipDefaultTransaction: true, // single statements are atomic; multi-statement writes open their own
		// Reuse prepared statements: parsing the same SQL on every call
		// was a fifth of a chat turn's time on SQLite.
		PrepareStmt: true,
	}
}

// Ping checks that the database answers.
func (db *DB) Ping(ctx context.Context) error {
	if err := db.sql.PingContext(ctx); err != nil {
		return fmt.Errorf("sqlstore: ping %s: %w", db.dialect, err)
	}
	return nil
}

// Close closes every connection. Stores must not be used afterwards.
func (db *DB) Close() error { return db.sql.Close() }

// Dialect returns DialectSQLite or DialectMySQL.
func (db *DB) Dialect() string { return db.dialect }

// Gorm returns the underlying gorm handle, for other stores inside infra
// only; application code never sees it.
func (db *DB) Gorm() *gorm.DB { return db.gorm }

// timestamp returns the current time as the stores keep it: UTC, to the
// millisecond, the precision of a MySQL DATETIME(3).
func (db *DB) timestamp() time.Time { return dbTime(db.now()) }

// dbTime brings t to the form stored: UTC, truncated to the millisecond.
func dbTime(t time.Time) time.Time { return t.UTC().Truncate(time.Millisecond) }

// dbTimePtr is dbTime for optional times.
func dbTimePtr(t *time.Time) *time.Time {
	if t == nil {
		return nil
	}
	v := dbTime(*t)
	return &v
}

// utcPtr returns a read optional time in UTC.
func utcPtr(t *time.Time) *time.Time {
	if t == nil {
		return nil
	}
	v := t.UTC()
	return &v
}

// errNoCipher is returned when a secret must be sealed or opened but Open
// was given no Cipher.
var errNoCipher = errors.New("sqlstore: no Cipher configured, cannot store or read secrets")

// IDs is the generator the stores assign ids with. Callers that need an
// id before storing (a chat streaming its messages) take theirs from it,
// so ids stay in one time-ordered sequence.
func (db *DB) IDs() *idgen.Generator { return db.ids }
