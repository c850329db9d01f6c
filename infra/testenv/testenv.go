// Package testenv gives tests the real MariaDB/MySQL and Redis they run
// against. Outside CI an unreachable server skips the test; with CI=true it
// fails it, because a contract suite that silently skips proves nothing.
//
// PERGOLA_TEST_MYSQL_DSN (default root@tcp(127.0.0.1:3306)/) and
// PERGOLA_TEST_REDIS_ADDR (default 127.0.0.1:6379) point elsewhere.
//
// Every name a test makes carries the run id PERGOLA_TEST_RUN (scripts/test.sh
// sets a random one; "local" without it): databases and MySQL users are
// pergola_test_<run>_<suffix>, Redis prefixes pergola_test:<run>:<test>:<suffix>:,
// so that after a run the script can list what the run left behind.
package testenv

import (
	"context"
	"crypto/rand"
	"database/sql"
	"encoding/hex"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/go-sql-driver/mysql"
)

// InCI reports whether the tests run under CI=true.
func InCI() bool { return os.Getenv("CI") == "true" }

func unavailable(t testing.TB, what string, err error) {
	t.Helper()
	if InCI() {
		t.Fatalf("%s is required under CI=true but unreachable: %v (run scripts/services.sh)", what, err)
	}
	t.Skipf("%s unreachable, skipping (set CI=true to make this a failure): %v", what, err)
}

// Suffix returns a short random name part for databases, keys and prefixes.
func Suffix() string {
	var b [5]byte
	_, _ = rand.Read(b[:])
	return hex.EncodeToString(b[:])
}

// MySQLBaseDSN returns the DSN of the test server, without a database.
func MySQLBaseDSN() string {
	if v := os.Getenv("PERGOLA_TEST_MYSQL_DSN"); v != "" {
		return v
	}
	return "root@tcp(127.0.0.1:3306)/"
}

// MySQL creates an empty database on the test server and returns a DSN for
// it; the database is dropped when the test ends.
func MySQL(t testing.TB) string {
	t.Helper()
	cfg, err := mysql.ParseDSN(MySQLBaseDSN())
	if err != nil {
		t.Fatalf("PERGOLA_TEST_MYSQL_DSN: %v", err)
	}
	cfg.DBName = ""
	db, err := sql.Open("mysql", cfg.FormatDSN())
	if err != nil {
		t.Fatalf("open mysql: %v", err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Second)
	defer cancel()
	if err := db.PingContext(ctx); err != nil {
		_ = db.Close()
		unavailable(t, "MariaDB/MySQL at "+cfg.Addr, err)
	}
	name := Name(t)
	if _, err := db.ExecContext(ctx, "CREATE DATABASE "+name+" CHARACTER SET utf8mb4 COLLATE utf8mb4_unicode_ci"); err != nil {
		_ = db.Close()
		t.Fatalf("create test database: %v", err)
	}
	t.Cleanup(func() {
		if _, err := db.Exec("DROP DATABASE IF EXISTS " + name); err != nil {
			t.Errorf("drop the test database %s: %v (it is left behind)", name, err)
		}
		_ = db.Close()
	})
	cfg.DBName = name
	cfg.ParseTime = true
	if cfg.Params == nil {
		cfg.Params = map[string]string{}
	}
	cfg.Params["charset"] = "utf8mb4"
	cfg.Loc = time.UTC
	return cfg.FormatDSN()
}

// Run returns the id of this test run: PERGOLA_TEST_RUN (1 to 8 lower-case
// letters or digits, as scripts/test.sh sets it) or "local".
func Run(t testing.TB) string {
	t.Helper()
	run := os.Getenv("PERGOLA_TEST_RUN")
	if run == "" {
		return "local"
	}
	if len(run) > 8 || strings.Trim(run, "abcdefghijklmnopqrstuvwxyz0123456789") != "" {
		t.Fatalf("PERGOLA_TEST_RUN must be 1 to 8 lower-case letters or digits, got %q", run)
	}
	return run
}

// Name returns a fresh name for a test database or MySQL user:
// pergola_test_<run>_<suffix>, at most 32 characters (MySQL's limit for
// user names).
func Name(t testing.TB) string {
	t.Helper()
	return "pergola_test_" + Run(t) + "_" + Suffix()
}
