package tablestore

import (
	"context"
	"database/sql"
	"errors"
	"strings"
	"testing"
	"time"

	gomysql "github.com/go-sql-driver/mysql"

	"github.com/pergola-ai/pergola/domain/errs"
	"github.com/pergola-ai/pergola/domain/table"
	"github.com/pergola-ai/pergola/infra/sqlguard"
	"github.com/pergola-ai/pergola/infra/sqlguard/sqlguardtest"
	"github.com/pergola-ai/pergola/infra/tablestore/tablestoretest"
	"github.com/pergola-ai/pergola/infra/testenv"
)

// maxPeakGrowth bounds how much the process's peak memory may grow while
// the amplification corpus runs: the reported statement alone took 800 MB.
const maxPeakGrowth = 64 << 20

// TestAmplifiers runs the amplification corpus through Run, as the table
// tool does, on tables whose titles are near the longest allowed. An
// amplifier is refused before it reaches the database (the guard is asked
// first, and a statement it would let through is never sent); a bounded
// statement runs or is refused in words. After each statement the
// process's peak memory has grown by less than maxPeakGrowth and, on
// MariaDB, nothing of the rows' user is left running and none of its
// connections used more than maxDBMemory on the server.
func TestAmplifiers(t *testing.T) {
	configs := []struct {
		name string
		dsn  func(t *testing.T) string
	}{{"sqlite", func(*testing.T) string { return "" }}, {"mariadb", func(t *testing.T) string { return tablestoretest.MySQL(t) }}}
	for _, c := range configs {
		t.Run(c.name, func(t *testing.T) {
			dsn := c.dsn(t)
			s := openStore(t, Config{DSN: dsn, SQLitePath: t.TempDir() + "/tables.db"})
			tb := create(t, s, notesTable(71))
			long := strings.Repeat("a", table.MaxTextLen-10)
			if _, err := s.InsertRows(context.Background(), tb, table.DataOnline, []table.Row{
				{UserID: "alice", Values: map[string]any{"title": long}}, {UserID: "alice", Values: map[string]any{"title": long}},
			}); err != nil {
				t.Fatal(err)
			}
			var root *sql.DB
			if dsn != "" {
				root = rootDB(t)
			}
			before := testenv.ProcStatus(t, "VmHWM")
			for _, a := range sqlguardtest.Amplifiers() {
				runAmplifier(t, s, tb, a)
				if grew := testenv.ProcStatus(t, "VmHWM") - before; grew > maxPeakGrowth {
					t.Fatalf("%s: peak memory grew by %d MiB, over %d MiB", a.Name, grew>>20, maxPeakGrowth>>20)
				}
				if dsn != "" {
					waitIdle(t, root, dsn)
					checkDBMemory(t, root, a.Name, dsn)
				}
			}
			t.Logf("peak RSS grew by %d KiB over %d statements", (testenv.ProcStatus(t, "VmHWM")-before)>>10, len(sqlguardtest.Amplifiers()))
		})
	}
}

func runAmplifier(t *testing.T, s *Store, tb *table.Table, a sqlguardtest.Case) {
	t.Helper()
	sc := table.Scope{Data: table.DataOnline, UserID: "alice"}
	_, guardErr := sqlguard.New().Rewrite(a.SQL, s.policy(tb, sc))
	if a.Expect == sqlguardtest.Refused && guardErr == nil {
		t.Errorf("%s: the guard accepts it; not sent to the database", a.Name)
		return
	}
	_, err := s.Run(context.Background(), tb, sc, a.SQL)
	switch {
	case a.Expect == sqlguardtest.Refused && !errors.Is(err, errs.ErrInvalid):
		t.Errorf("%s: Run = %v, want a refusal", a.Name, err)
	case err != nil && !errors.Is(err, errs.ErrInvalid):
		t.Errorf("%s: Run = %v, want a result or a refusal", a.Name, err)
	}
}

// waitIdle fails unless, within a few seconds, no connection of the user
// of dsn is running a statement, as root sees the process list.
func waitIdle(t *testing.T, root *sql.DB, dsn string) {
	t.Helper()
	cfg, err := gomysql.ParseDSN(dsn)
	if err != nil {
		t.Fatal(err)
	}
	var running []string
	for deadline := time.Now().Add(10 * time.Second); time.Now().Before(deadline); time.Sleep(100 * time.Millisecond) {
		running = running[:0]
		rows, err := root.Query("SELECT CONCAT(ID, ' ', COMMAND, ' ', COALESCE(INFO, '')) FROM information_schema.PROCESSLIST "+
			"WHERE USER = ? AND COMMAND <> 'Sleep'", cfg.User)
		if err != nil {
			t.Fatal(err)
		}
		for rows.Next() {
			var r string
			_ = rows.Scan(&r)
			running = append(running, r)
		}
		_ = rows.Close()
		if len(running) == 0 {
			return
		}
	}
	t.Errorf("still running for %s: %q", cfg.User, running)
	if _, err := root.Exec("KILL USER '" + cfg.User + "'"); err != nil { // or dropping the database waits for it
		t.Logf("kill %s: %v", cfg.User, err)
	}
}

// maxDBMemory bounds the memory MariaDB may have used for one connection
// of the rows' user at its peak (PROCESSLIST.MAX_MEMORY_USED).
const maxDBMemory = 64 << 20

// checkDBMemory fails when a connection of the user of dsn used more than
// maxDBMemory on the database server.
func checkDBMemory(t *testing.T, root *sql.DB, name, dsn string) {
	t.Helper()
	cfg, err := gomysql.ParseDSN(dsn)
	if err != nil {
		t.Fatal(err)
	}
	var peak sql.NullInt64
	err = root.QueryRow("SELECT MAX(MAX_MEMORY_USED) FROM information_schema.PROCESSLIST WHERE USER = ?", cfg.User).Scan(&peak)
	if err != nil {
		t.Fatal(err)
	}
	if peak.Int64 > maxDBMemory {
		t.Fatalf("%s: a connection of %s used %d MiB on MariaDB, over %d MiB", name, cfg.User, peak.Int64>>20, maxDBMemory>>20)
	}
}

// rootDB connects to the test server as its administrator.
func rootDB(t *testing.T) *sql.DB {
	t.Helper()
	admin, err := gomysql.ParseDSN(testenv.MySQLBaseDSN())
	if err != nil {
		t.Fatal(err)
	}
	admin.DBName = ""
	db, err := sql.Open("mysql", admin.FormatDSN())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = db.Close() })
	return db
}

// TestKillOnTimeout runs, below the guard, a statement the server does
// not stop by itself (a cross join of a small table with itself, minutes
// of work, without a server time limit) with a short deadline: Pergola
// kills it, and the process list shows nothing of the rows' user left
// running.
func TestKillOnTimeout(t *testing.T) {
	dsn := tablestoretest.MySQL(t)
	s := openStore(t, Config{DSN: dsn})
	for _, stmt := range []string{
		"CREATE TABLE k (n INT)",
		"INSERT INTO k VALUES " + strings.TrimSuffix(strings.Repeat("(1),", 2000), ","),
	} {
		if _, err := s.DB().Exec(stmt); err != nil {
			t.Fatal(err)
		}
	}
	st := &sqlguard.Statement{Kind: sqlguard.Select, SQL: "SELECT COUNT(*) AS `a0` FROM k a, k b, k c WHERE a.n + b.n + c.n > 0",
		Columns: []sqlguard.OutColumn{{Name: "a0"}}, MaxRows: 1}
	ctx, cancel := context.WithTimeout(context.Background(), 300*time.Millisecond)
	defer cancel()
	if _, err := s.runOnConn(ctx, st, st.SQL); err == nil {
		t.Fatal("the cross join ended within 300 ms")
	}
	waitIdle(t, rootDB(t), dsn)
	if err := s.Ping(context.Background()); err != nil {
		t.Fatalf("the store is unusable after the kill: %v", err)
	}
}

// TestSQLiteLengthLimit checks that every connection of the SQLite pool
// refuses to build a value longer than maxSQLiteLength.
func TestSQLiteLengthLimit(t *testing.T) {
	s := openStore(t, Config{SQLitePath: t.TempDir() + "/tables.db"})
	ctx := context.Background()
	var conns []*sql.Conn
	for range 4 {
		c, err := s.DB().Conn(ctx)
		if err != nil {
			t.Fatal(err)
		}
		conns = append(conns, c)
	}
	for i, c := range conns {
		var n int64
		err := c.QueryRowContext(ctx, "SELECT length(zeroblob(?))", maxSQLiteLength+1).Scan(&n)
		if err == nil || !strings.Contains(err.Error(), "too big") {
			t.Errorf("connection %d: a blob over the limit gives %d, %v", i, n, err)
		}
		if err := c.QueryRowContext(ctx, "SELECT length(zeroblob(?))", maxSQLiteLength).Scan(&n); err != nil {
			t.Errorf("connection %d: a blob at the limit: %v", i, err)
		}
		_ = c.Close()
	}
}
