package main

import (
	"database/sql"
	"strings"
	"testing"

	gomysql "github.com/go-sql-driver/mysql"

	"github.com/pergola-ai/pergola/infra/testenv"
)

// TestDatabaseAccountLockedAnswers503 runs pergola as its own MariaDB user
// and locks that account while it serves: once its connections are gone,
// API calls answer 503 with Retry-After saying the database is
// unavailable (as for a lost connection), not 500; unlocked, they work
// again without a restart.
func TestDatabaseAccountLockedAnswers503(t *testing.T) {
	dsn := testenv.MySQL(t)
	cfg, err := gomysql.ParseDSN(dsn)
	if err != nil {
		t.Fatal(err)
	}
	root, err := sql.Open("mysql", dsn)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = root.Close() }) // after the user is dropped (cleanups run last first)
	user := testenv.Name(t)
	exec := func(q string, args ...any) {
		t.Helper()
		if _, err := root.Exec(q, args...); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
	}
	exec("CREATE USER '" + user + "'@'%' IDENTIFIED BY 'pergola-lock-test'")
	t.Cleanup(func() {
		if _, err := root.Exec("DROP USER IF EXISTS '" + user + "'@'%'"); err != nil {
			t.Errorf("drop the test's MySQL user %s: %v", user, err)
		}
	})
	exec("GRANT ALL ON " + cfg.DBName + ".* TO '" + user + "'@'%'")
	own := cfg.Clone()
	own.User, own.Passwd = user, "pergola-lock-test"
	s := startServer(t, map[string]string{"PERGOLA_DB_DSN": own.FormatDSN(), "PERGOLA_SECRET_KEY": strings.Repeat("0123456789abcdef", 4)})
	s.call(t, "GET", "/v1/workspaces", bootstrapToken, nil).must(t, 200)

	exec("ALTER USER '" + user + "'@'%' ACCOUNT LOCK")
	killConnections(t, root, user)
	for _, path := range []string{"/v1/workspaces", "/api/bots?workspace_id=1"} {
		status, retry, msg := rawStatus(s, path)
		if status != 503 || retry == "" || !strings.Contains(msg, "database is unavailable") {
			t.Fatalf("GET %s with the account locked answered %d, Retry-After %q, %q; want 503 with Retry-After", path, status, retry, msg)
		}
	}
	exec("ALTER USER '" + user + "'@'%' ACCOUNT UNLOCK")
	waitFor(t, "the API to answer again once unlocked", func() bool { st, _, _ := rawStatus(s, "/v1/workspaces"); return st == 200 })
}

// killConnections ends every session of user, so the next query needs a
// new connection.
func killConnections(t *testing.T, root *sql.DB, user string) {
	t.Helper()
	rows, err := root.Query("SELECT id FROM information_schema.processlist WHERE user = ?", user)
	if err != nil {
		t.Fatal(err)
	}
	var ids []int64
	for rows.Next() {
		var id int64
		if err := rows.Scan(&id); err != nil {
			t.Fatal(err)
		}
		ids = append(ids, id)
	}
	_ = rows.Close()
	for _, id := range ids {
		_, _ = root.Exec("KILL ?", id)
	}
}
