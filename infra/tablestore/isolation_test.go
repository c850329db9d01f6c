package tablestore

import (
	"context"
	"path/filepath"
	"strings"
	"testing"

	gomysql "github.com/go-sql-driver/mysql"

	"github.com/pergola-ai/pergola/infra/sqlstore"
	"github.com/pergola-ai/pergola/infra/tablestore/tablestoretest"
	"github.com/pergola-ai/pergola/infra/testenv"
)

// TestIsolationMySQL proves that the connection the SQL tool runs on
// cannot read the platform's tables on the same server, and that
// CheckIsolation tells a restricted user from one that may reach more.
func TestIsolationMySQL(t *testing.T) {
	ctx := context.Background()
	platformDSN := testenv.MySQL(t)
	platform, err := sqlstore.Open(ctx, sqlstore.Config{DSN: platformDSN})
	if err != nil {
		t.Fatal(err)
	}
	defer platform.Close()
	if _, err := platform.Migrate(ctx); err != nil {
		t.Fatal(err)
	}
	cfg, _ := gomysql.ParseDSN(platformDSN)

	rows := openStore(t, Config{DSN: tablestoretest.MySQL(t)})
	if err := rows.CheckIsolation(ctx, cfg.DBName); err != nil {
		t.Errorf("CheckIsolation of the restricted user: %v", err)
	}
	for _, q := range []string{
		"SELECT COUNT(*) FROM `" + cfg.DBName + "`.users",
		"SELECT COUNT(*) FROM `" + cfg.DBName + "`.tokens",
		"SELECT COUNT(*) FROM mysql.user",
	} {
		var n int
		err := rows.DB().QueryRowContext(ctx, q).Scan(&n)
		if err == nil || !strings.Contains(err.Error(), "denied") {
			t.Errorf("%s on the tool's connection = %v, want access denied", q, err)
		}
	}
	var n int
	err = rows.DB().QueryRowContext(ctx, "SELECT COUNT(*) FROM information_schema.TABLES WHERE TABLE_SCHEMA = ?", cfg.DBName).Scan(&n)
	if err != nil || n != 0 {
		t.Errorf("the tool's user sees %d platform tables in information_schema (%v), want 0", n, err)
	}

	wide := openStore(t, Config{DSN: testenv.MySQL(t)}) // the test server's admin
	if err := wide.CheckIsolation(ctx, cfg.DBName); err == nil || !strings.Contains(err.Error(), "may reach more") {
		t.Errorf("CheckIsolation of an admin user = %v, want a refusal", err)
	}
}

// TestIsolationSQLite proves that the rows' file is apart from the
// platform's: the tool's pool sees no platform table and has no other
// database attached.
func TestIsolationSQLite(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	platform, err := sqlstore.Open(ctx, sqlstore.Config{SQLitePath: filepath.Join(dir, "pergola.db")})
	if err != nil {
		t.Fatal(err)
	}
	defer platform.Close()
	if _, err := platform.Migrate(ctx); err != nil {
		t.Fatal(err)
	}
	rows := openStore(t, Config{SQLitePath: filepath.Join(dir, "tables.db")})
	var n int
	if err := rows.DB().QueryRowContext(ctx, "SELECT COUNT(*) FROM users").Scan(&n); err == nil || !strings.Contains(err.Error(), "no such table") {
		t.Errorf("reading users on the tool's connection = %v, want no such table", err)
	}
	if err := rows.DB().QueryRowContext(ctx, "SELECT COUNT(*) FROM pragma_database_list").Scan(&n); err != nil || n != 1 {
		t.Errorf("the tool's connection has %d databases (%v), want its own file only", n, err)
	}
	if err := rows.CheckIsolation(ctx, "pergola"); err != nil {
		t.Errorf("CheckIsolation on SQLite = %v", err)
	}
}
