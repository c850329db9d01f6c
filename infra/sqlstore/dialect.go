package sqlstore

import (
	"database/sql"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"time"

	"github.com/glebarez/sqlite"
	gomysql "github.com/go-sql-driver/mysql"
	"gorm.io/driver/mysql"
	"gorm.io/gorm"
)

// MySQL pool sizes: enough for a busy process, well under the default
// max_connections of 151 when a few processes share a server.
const (
	mysqlMaxOpen     = 40
	mysqlMaxIdle     = 10
	mysqlMaxLifetime = 30 * time.Minute
	mysqlMaxIdleTime = 5 * time.Minute
)

// mysqlConfig parses dsn and forces what the stores rely on: times read as
// UTC time.Time, utf8mb4, and UPDATE reporting matched rather than changed
// rows so that "no such row" can be told from "nothing to change".
func mysqlConfig(dsn string) (*gomysql.Config, error) {
	cfg, err := gomysql.ParseDSN(dsn)
	if err != nil {
		return nil, fmt.Errorf("sqlstore: parse MySQL DSN: %w", err)
	}
	if cfg.DBName == "" {
		return nil, errors.New("sqlstore: MySQL DSN names no database; add it after the slash, e.g. user:pw@tcp(host:3306)/pergola")
	}
	cfg.ParseTime = true
	cfg.Loc = time.UTC
	cfg.Collation = "utf8mb4_unicode_ci"
	delete(cfg.Params, "charset") // the collation sets utf8mb4 in the handshake
	cfg.ClientFoundRows = true
	if cfg.Timeout == 0 {
		cfg.Timeout = 10 * time.Second
	}
	return cfg, nil
}

func openMySQL(dsn string, gcfg *gorm.Config) (*sql.DB, *gorm.DB, error) {
	cfg, err := mysqlConfig(dsn)
	if err != nil {
		return nil, nil, err
	}
	connector, err := gomysql.NewConnector(cfg)
	if err != nil {
		return nil, nil, fmt.Errorf("sqlstore: MySQL DSN: %w", err)
	}
	sqlDB := sql.OpenDB(connector)
	sqlDB.SetMaxOpenConns(mysqlMaxOpen)
	sqlDB.SetMaxIdleConns(mysqlMaxIdle)
	sqlDB.SetConnMaxLifetime(mysqlMaxLifetime)
	sqlDB.SetConnMaxIdleTime(mysqlMaxIdleTime)
	gdb, err := gorm.Open(mysql.New(mysql.Config{Conn: sqlDB}), gcfg)
	if err != nil {
		_ = sqlDB.Close()
		return nil, nil, fmt.Errorf("sqlstore: open MySQL at %s: %w", cfg.Addr, err)
	}
	return sqlDB, gdb, nil
}

// sqliteParams configures every SQLite connection. WAL lets readers run
// beside the one writer; busy_timeout makes a writer wait for the lock
// instead of failing with SQLITE_BUSY; _txlock=immediate takes the write
// lock when a read-write transaction begins, because a deferred transaction
// that reads and then writes cannot wait for it and fails at once.
const sqliteParams = "?_pragma=busy_timeout(10000)" +
	"&_pragma=journal_mode(WAL)" +
	"&_pragma=synchronous(NORMAL)" +
	"&_pragma=foreign_keys(1)" +
	"&_txlock=immediate"

func openSQLite(path string, gcfg *gorm.Config) (*sql.DB, *gorm.DB, error) {
	if path == "" {
		return nil, nil, errors.New("sqlstore: neither a MySQL DSN nor a SQLite path is configured")
	}
	if strings.ContainsAny(path, "?#") {
		return nil, nil, fmt.Errorf("sqlstore: SQLite path %q must not contain '?' or '#'", path)
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		return nil, nil, fmt.Errorf("sqlstore: create SQLite directory: %w", err)
	}
	gdb, err := gorm.Open(sqlite.Open(path+sqliteParams), gcfg)
	if err != nil {
		return nil, nil, fmt.Errorf("sqlstore: open SQLite %s: %w", path, err)
	}
	sqlDB, err := gdb.DB()
	if err != nil {
		return nil, nil, fmt.Errorf("sqlstore: open SQLite %s: %w", path, err)
	}
	// Writers take turns anyway; a few connections let reads proceed while
	// one writes, and keeping them open keeps their page caches warm.
	n := max(4, runtime.GOMAXPROCS(0))
	sqlDB.SetMaxOpenConns(n)
	sqlDB.SetMaxIdleConns(n)
	sqlDB.SetConnMaxLifetime(0)
	return sqlDB, gdb, nil
}
