// Package tablestoretest gives tests the rows' database the way production
// runs it on MySQL: a database of its own and a user with rights on that
// database only.
package tablestoretest

import (
	"context"
	"crypto/rand"
	"database/sql"
	"encoding/hex"
	"testing"
	"time"

	"github.com/go-sql-driver/mysql"

	"github.com/pergola-ai/pergola/infra/testenv"
)

// Grants are the rights the rows' user needs on its database, and all it
// gets (scripts/tables-mysql.sql grants the same).
const Grants = "SELECT, INSERT, UPDATE, DELETE, CREATE, DROP, ALTER, INDEX"

// MySQL creates, on the test server, a database for rows and a user that
// may use that database only, and returns the user's DSN for it. Both are
// dropped when the test ends. It skips or fails like testenv.MySQL when
// the server is unreachable.
func MySQL(t testing.TB) string {
	t.Helper()
	testenv.MySQL(t) // skips or fails the test when the server is unreachable
	admin, err := mysql.ParseDSN(testenv.MySQLBaseDSN())
	if err != nil {
		t.Fatalf("PERGOLA_TEST_MYSQL_DSN: %v", err)
	}
	admin.DBName = ""
	db, err := sql.Open("mysql", admin.FormatDSN())
	if err != nil {
		t.Fatalf("open mysql: %v", err)
	}
	name := testenv.Name(t) // the database and its user share the run's name
	user, password := name, secret()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	for _, stmt := range []string{
		"CREATE DATABASE " + name + " CHARACTER SET utf8mb4 COLLATE utf8mb4_unicode_ci",
		"CREATE USER '" + user + "'@'%' IDENTIFIED BY '" + password + "'",
		"GRANT " + Grants + " ON `" + name + "`.* TO '" + user + "'@'%'",
	} {
		if _, err := db.ExecContext(ctx, stmt); err != nil {
			_ = db.Close()
			t.Fatalf("set up the rows' database: %s: %v", stmt, err)
		}
	}
	t.Cleanup(func() {
		_, _ = db.Exec("DROP USER IF EXISTS '" + user + "'@'%'")
		_, _ = db.Exec("DROP DATABASE IF EXISTS " + name)
		_ = db.Close()
	})
	cfg := mysql.NewConfig()
	cfg.User, cfg.Passwd, cfg.Net, cfg.Addr, cfg.DBName = user, password, admin.Net, admin.Addr, name
	return cfg.FormatDSN()
}

func secret() string {
	var b [12]byte
	_, _ = rand.Read(b[:])
	return hex.EncodeToString(b[:])
}
