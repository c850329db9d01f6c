// Package tablestore keeps the rows of tables, apart from the platform's
// data: on MySQL or MariaDB in a database of their own, reached through a
// user with rights on that database only; on SQLite in a file of their
// own, opened by a pool of its own to which the platform's file is never
// attached. Each table has two physical tables, for its draft and online
// rows; physical names are never shown outside this package.
//
// Run executes the SQL a model writes, through sqlguard; the other methods
// serve builders (schema changes, row management, sizes).
package tablestore

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"time"

	_ "github.com/glebarez/go-sqlite" // the pure-Go SQLite driver "sqlite"
	gomysql "github.com/go-sql-driver/mysql"

	"github.com/pergola-ai/pergola/infra/sqlguard"
)

// Defaults of a Store.
const (
	DefaultMaxRows = 100
	DefaultTimeout = 5 * time.Second
)

// Config says where the rows live and how statements are bounded.
type Config struct {
	// DSN is the MySQL/MariaDB DSN of the rows' database, in
	// go-sql-driver form; its user should have rights on that database
	// only (see CheckIsolation). Empty selects SQLite at SQLitePath.
	DSN        string
	SQLitePath string
	// MaxRows caps the rows a model's SELECT returns; 0 means 100.
	MaxRows int
	// Timeout caps one statement of the model; 0 means 5 s.
	Timeout time.Duration
	Logger  *slog.Logger
}

// Store keeps the rows of every table. It is safe for concurrent use.
type Store struct {
	db      *sql.DB
	dialect sqlguard.Dialect
	mariadb bool
	schema  string // the MySQL database
	guard   *sqlguard.Guard
	maxRows int
	timeout time.Duration
	log     *slog.Logger
	now     func() time.Time
}

// Open connects to the rows' database and checks that it answers.
func Open(ctx context.Context, cfg Config) (*Store, error) {
	s := &Store{guard: sqlguard.New(), maxRows: cfg.MaxRows, timeout: cfg.Timeout, log: cfg.Logger, now: time.Now}
	if s.maxRows <= 0 {
		s.maxRows = DefaultMaxRows
	}
	if s.timeout <= 0 {
		s.timeout = DefaultTimeout
	}
	if s.log == nil {
		s.log = slog.New(slog.DiscardHandler)
	}
	var err error
	if cfg.DSN != "" {
		err = s.openMySQL(ctx, cfg.DSN)
	} else {
		err = s.openSQLite(cfg.SQLitePath)
	}
	if err != nil {
		return nil, err
	}
	if err := s.Ping(ctx); err != nil {
		_ = s.db.Close()
		return nil, err
	}
	return s, nil
}

func (s *Store) openMySQL(ctx context.Context, dsn string) error {
	cfg, err := gomysql.ParseDSN(dsn)
	if err != nil {
		return fmt.Errorf("tablestore: parse MySQL DSN: %w", err)
	}
	if cfg.DBName == "" {
		return errors.New("tablestore: the MySQL DSN names no database; add the rows' database after the slash")
	}
	cfg.ParseTime, cfg.Loc, cfg.InterpolateParams = true, time.UTC, true
	cfg.ClientFoundRows = true // UPDATE counts the rows it matched
	cfg.Collation = "utf8mb4_unicode_ci"
	if cfg.Params == nil {
		cfg.Params = map[string]string{}
	}
	delete(cfg.Params, "charset")
	cfg.Params["time_zone"] = "'+00:00'"
	cfg.Params["sql_mode"] = "'STRICT_ALL_TABLES,NO_ENGINE_SUBSTITUTION,ERROR_FOR_DIVISION_BY_ZERO'"
	if cfg.Timeout == 0 {
		cfg.Timeout = 10 * time.Second
	}
	connector, err := gomysql.NewConnector(cfg)
	if err != nil {
		return fmt.Errorf("tablestore: MySQL DSN: %w", err)
	}
	s.db, s.dialect, s.schema = sql.OpenDB(connector), sqlguard.MySQL, cfg.DBName
	s.db.SetMaxOpenConns(20)
	s.db.SetMaxIdleConns(10)
	s.db.SetConnMaxLifetime(30 * time.Minute)
	var version string
	if err := s.db.QueryRowContext(ctx, "SELECT VERSION()").Scan(&version); err != nil {
		_ = s.db.Close()
		return fmt.Errorf("tablestore: connect to MySQL at %s: %w", cfg.Addr, err)
	}
	s.mariadb = strings.Contains(strings.ToLower(version), "mariadb")
	if err := s.exactOwners(ctx); err != nil {
		_ = s.db.Close()
		return err
	}
	return nil
}

// sqliteParams are those of the platform's SQLite file: WAL, a writer
// waiting for the lock instead of failing, immediate write transactions.
const sqliteParams = "?_pragma=busy_timeout(10000)&_pragma=journal_mode(WAL)&_pragma=synchronous(NORMAL)&_txlock=immediate"

func (s *Store) openSQLite(path string) error {
	if path == "" {
		return errors.New("tablestore: neither a MySQL DSN nor a SQLite path is configured")
	}
	if strings.ContainsAny(path, "?#") {
		return fmt.Errorf("tablestore: SQLite path %q must not contain '?' or '#'", path)
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		return fmt.Errorf("tablestore: create SQLite directory: %w", err)
	}
	db, err := openLimitedSQLite(path + sqliteParams)
	if err != nil {
		return fmt.Errorf("tablestore: open SQLite %s: %w", path, err)
	}
	db.SetMaxOpenConns(4)
	db.SetMaxIdleConns(4)
	db.SetConnMaxLifetime(0)
	s.db, s.dialect = db, sqlguard.SQLite
	return nil
}

// Ping checks that the database answers.
func (s *Store) Ping(ctx context.Context) error {
	if err := s.db.PingContext(ctx); err != nil {
		return fmt.Errorf("tablestore: ping: %w", err)
	}
	return nil
}

// Close closes every connection.
func (s *Store) Close() error { return s.db.Close() }

// DB returns the connection pool, for tests that prove what it can reach.
func (s *Store) DB() *sql.DB { return s.db }

// timestamp is the current time as the rows keep it.
func (s *Store) timestamp() string { return s.now().UTC().Format("2006-01-02 15:04:05") }
