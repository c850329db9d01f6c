// Package testenv gives tests the real MariaDB/MySQL and Redis they run
// against. Outside CI an unreachable server skips the test; with CI=true it
// fails it, because a contract suite that silently skips proves nothing.
//
// PERGOLA_TEST_MYSQL_DSN (default root@tcp(127.0.0.1:3306)/) and
// PERGOLA_TEST_REDIS_ADDR (default 127.0.0.1:6379) point elsewhere.
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
	"github.com/redis/go-redis/v9"
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
	name := "pergola_test_" + Suffix()
	if _, err := db.ExecContext(ctx, "CREATE DATABASE "+name+" CHARACTER SET utf8mb4 COLLATE utf8mb4_unicode_ci"); err != nil {
		_ = db.Close()
		t.Fatalf("create test database: %v", err)
	}
	t.Cleanup(func() {
		_, _ = db.Exec("DROP DATABASE IF EXISTS " + name)
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

// RedisAddr returns the address of the test Redis after checking that it
// answers.
func RedisAddr(t testing.TB) string {
	t.Helper()
	addr := os.Getenv("PERGOLA_TEST_REDIS_ADDR")
	if addr == "" {
		addr = "127.0.0.1:6379"
	}
	c := redis.NewClient(&redis.Options{Addr: addr})
	defer c.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Second)
	defer cancel()
	if err := c.Ping(ctx).Err(); err != nil {
		unavailable(t, "Redis at "+addr, err)
	}
	return addr
}

// Redis returns a client of the test Redis and a key prefix unique to this
// test; keys under the prefix are deleted when the test ends.
func Redis(t testing.TB) (*redis.Client, string) {
	t.Helper()
	c := redis.NewClient(&redis.Options{Addr: RedisAddr(t)})
	prefix := "pergola_test:" + strings.ReplaceAll(t.Name(), "/", ".") + ":" + Suffix() + ":"
	t.Cleanup(func() {
		ctx := context.Background()
		iter := c.Scan(ctx, 0, prefix+"*", 500).Iterator()
		for iter.Next(ctx) {
			c.Del(ctx, iter.Val())
		}
		_ = c.Close()
	})
	return c, prefix
}
