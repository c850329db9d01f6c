package tablestore

import (
	"context"
	"database/sql"
	"os"
	"strings"
	"testing"

	gomysql "github.com/go-sql-driver/mysql"

	"github.com/pergola-ai/pergola/domain/table"
	"github.com/pergola-ai/pergola/infra/tablestore/tablestoretest"
	"github.com/pergola-ai/pergola/infra/testenv"
)

// TestProductionScript runs scripts/tables-mysql.sql (under fresh names)
// and checks that the user it makes passes CheckIsolation and can do all
// a store does, and that it grants what the tests' users get.
func TestProductionScript(t *testing.T) {
	b, err := os.ReadFile("../../scripts/tables-mysql.sql")
	if err != nil {
		t.Fatal(err)
	}
	script := string(b)
	if !strings.Contains(script, "GRANT "+tablestoretest.Grants+" ON pergola_rows.*") {
		t.Fatalf("the script does not grant %q", tablestoretest.Grants)
	}
	testenv.MySQL(t) // skips or fails when the server is unreachable
	admin, _ := gomysql.ParseDSN(testenv.MySQLBaseDSN())
	admin.DBName = ""
	db, err := sql.Open("mysql", admin.FormatDSN())
	if err != nil {
		t.Fatal(err)
	}
	name, password := testenv.Name(t), "pw-"+testenv.Suffix()
	script = strings.NewReplacer("pergola_rows", name, "CHANGE-ME", password).Replace(script)
	// The connection is closed by the cleanup, after the drops: a deferred
	// Close runs before cleanups and left both behind.
	t.Cleanup(func() {
		if _, err := db.Exec("DROP USER IF EXISTS '" + name + "'@'%'"); err != nil {
			t.Errorf("drop the script's user: %v", err)
		}
		if _, err := db.Exec("DROP DATABASE IF EXISTS " + name); err != nil {
			t.Errorf("drop the script's database: %v", err)
		}
		_ = db.Close()
	})
	for _, stmt := range statements(script) {
		if _, err := db.Exec(stmt); err != nil {
			t.Fatalf("%s: %v", stmt, err)
		}
	}
	cfg := gomysql.NewConfig()
	cfg.User, cfg.Passwd, cfg.Net, cfg.Addr, cfg.DBName = name, password, admin.Net, admin.Addr, name
	s := openStore(t, Config{DSN: cfg.FormatDSN()})
	ctx := context.Background()
	if err := s.CheckIsolation(ctx, "pergola"); err != nil {
		t.Fatalf("CheckIsolation: %v", err)
	}
	tb := create(t, s, notesTable(61))
	next := tb.Clone()
	added, dropped, err := next.SetFields([]table.FieldSpec{{ID: 1, Name: "title"}, {Name: "extra", Type: table.TypeText}})
	if err != nil {
		t.Fatal(err)
	}
	if err := s.AddFields(ctx, next, added); err != nil {
		t.Fatal(err)
	}
	if err := s.DropFields(ctx, next, dropped); err != nil {
		t.Fatal(err)
	}
	run(t, s, next, table.DataOnline, "alice", "INSERT INTO notes (title, extra) VALUES ('a', 'b')")
	if _, err := s.Sizes(ctx, []int64{next.ID}); err != nil {
		t.Fatal(err)
	}
	if err := s.DropTable(ctx, next.ID); err != nil {
		t.Fatal(err)
	}
}

// statements splits a script into its statements, dropping comments.
func statements(script string) []string {
	var out []string
	var cur strings.Builder
	for _, line := range strings.Split(script, "\n") {
		if strings.HasPrefix(strings.TrimSpace(line), "--") {
			continue
		}
		cur.WriteString(line + "\n")
		if strings.HasSuffix(strings.TrimSpace(line), ";") {
			out = append(out, strings.TrimSpace(cur.String()))
			cur.Reset()
		}
	}
	return out
}
