package sqlstore

import (
	"context"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"gorm.io/gorm"

	"github.com/pergola-ai/pergola/domain/identity"
)

func TestOpenRejectsBadConfig(t *testing.T) {
	tests := []struct {
		name    string
		cfg     Config
		wantErr string
	}{
		{"nothing configured", Config{}, "neither a MySQL DSN nor a SQLite path"},
		{"DSN without database", Config{DSN: "root@tcp(127.0.0.1:3306)/"}, "names no database"},
		{"unparsable DSN", Config{DSN: "root@tcp(127.0.0.1:3306"}, "parse MySQL DSN"},
		{"SQLite path with a query", Config{SQLitePath: "/tmp/x.db?mode=ro"}, "must not contain"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, err := Open(context.Background(), tc.cfg)
			if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
				t.Errorf("Open error = %v, want one containing %q", err, tc.wantErr)
			}
		})
	}
}

func TestMySQLConfigForcesWhatStoresNeed(t *testing.T) {
	cfg, err := mysqlConfig("u:p@tcp(db:3306)/pergola?charset=latin1&parseTime=false&loc=Local")
	mustNot(t, err)
	if !cfg.ParseTime || cfg.Loc != time.UTC || !cfg.ClientFoundRows || cfg.Collation != "utf8mb4_unicode_ci" || cfg.Params["charset"] != "" {
		t.Errorf("mysqlConfig = parseTime %v, loc %v, clientFoundRows %v, collation %q, charset %q",
			cfg.ParseTime, cfg.Loc, cfg.ClientFoundRows, cfg.Collation, cfg.Params["charset"])
	}
}

func TestSQLiteFileIsCreated(t *testing.T) {
	path := filepath.Join(t.TempDir(), "nested", "dir", "pergola.db")
	db := openDB(t, Config{SQLitePath: path})
	if db.Dialect() != DialectSQLite {
		t.Errorf("Dialect = %q", db.Dialect())
	}
	var mode string
	mustNot(t, db.Gorm().Raw("PRAGMA journal_mode").Scan(&mode).Error)
	var fk int
	mustNot(t, db.Gorm().Raw("PRAGMA foreign_keys").Scan(&fk).Error)
	if mode != "wal" || fk != 1 {
		t.Errorf("journal_mode %q, foreign_keys %d; want wal and 1", mode, fk)
	}
}

// The row lock of UpdateX must reach MySQL and must not break SQLite,
// which has no FOR UPDATE.
func TestForUpdatePerDialect(t *testing.T) {
	forEachBackend(t, func(t *testing.T, db *DB) {
		sql := db.Gorm().ToSQL(func(tx *gorm.DB) *gorm.DB { return forUpdate(tx).Where("id = ?", 1).Take(&userRow{}) })
		want := db.Dialect() == DialectMySQL
		if got := strings.Contains(sql, "FOR UPDATE"); got != want {
			t.Errorf("%s: %q; FOR UPDATE present = %v, want %v", db.Dialect(), sql, got, want)
		}
		if _, err := db.Users().UpdateUser(context.Background(), 1, func(*identity.User) error { return nil }); err == nil {
			t.Errorf("UpdateUser of a missing user succeeded")
		}
	})
}
