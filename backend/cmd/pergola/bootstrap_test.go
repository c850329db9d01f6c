package main

import (
	"bytes"
	"context"
	"log/slog"
	"path/filepath"
	"strings"
	"testing"

	identityapp "github.com/pergola-ai/pergola/application/identity"
	"github.com/pergola-ai/pergola/backend/config"
	"github.com/pergola-ai/pergola/infra/sqlstore"
)

// TestBootstrapLogsHowToGetIn captures the start's log on a real SQLite
// database: an empty database without a token warns how to bootstrap, the
// bootstrap says how to use the token, a restart with the same token says
// nothing, and a restart with another token warns that it was not applied
// and how to get a token.
func TestBootstrapLogsHowToGetIn(t *testing.T) {
	ctx := context.Background()
	db, err := sqlstore.Open(ctx, sqlstore.Config{SQLitePath: filepath.Join(t.TempDir(), "p.db")})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = db.Close() })
	if _, err := db.Migrate(ctx); err != nil {
		t.Fatal(err)
	}
	ident := identityapp.New(db.Users(), db.Workspaces(), db.Tokens())
	start := func(token string) string {
		t.Helper()
		var logs bytes.Buffer
		log := slog.New(slog.NewTextHandler(&logs, nil))
		cfg := config.Defaults()
		cfg.BootstrapToken, cfg.BootstrapPassword = token, "admin-password"
		if err := bootstrap(ctx, ident, cfg, log); err != nil {
			t.Fatal(err)
		}
		return logs.String()
	}
	expect := func(logs string, want ...string) {
		t.Helper()
		for _, w := range want {
			if !strings.Contains(logs, w) {
				t.Fatalf("log lacks %q:\n%s", w, logs)
			}
		}
	}
	expect(start(""), "level=WARN", "no users", "PERGOLA_BOOTSTRAP_TOKEN is not set", "admin_email=admin@pergola.local")
	expect(start("pat_first_token"), "level=INFO", "bootstrapped an empty database", "PERGOLA_BOOTSTRAP_PASSWORD")
	if logs := start("pat_first_token"); logs != "" {
		t.Fatalf("a restart with the stored token logs:\n%s", logs)
	}
	expect(start("pat_changed_token"), "level=WARN", "PERGOLA_BOOTSTRAP_TOKEN was not applied", "already has users",
		"gets 401", "pergola token --email")
	if logs := start(""); logs != "" {
		t.Fatalf("a restart without a token logs:\n%s", logs)
	}
}

// TestLockedOutAdminGetsInWithTokenCommand: a restart on the same data
// directory with a changed PERGOLA_BOOTSTRAP_TOKEN does not make that
// token valid (401), and `pergola token --email` prints a token that the
// running server accepts as the administrator's.
func TestLockedOutAdminGetsInWithTokenCommand(t *testing.T) {
	dir := t.TempDir()
	first := startServer(t, map[string]string{"PERGOLA_DATA_DIR": dir})
	first.call(t, "GET", "/api/me", bootstrapToken, nil).must(t, 200)
	if err := first.stop(); err != nil {
		t.Fatal(err)
	}
	s := startServer(t, map[string]string{"PERGOLA_DATA_DIR": dir, "PERGOLA_BOOTSTRAP_TOKEN": "pat_changed_after_restart"})
	if r := s.call(t, "GET", "/api/me", "pat_changed_after_restart", nil); r.status != 401 {
		t.Fatalf("the changed bootstrap token got %d, want 401", r.status)
	}
	env := map[string]string{"PERGOLA_DATA_DIR": dir}
	var out bytes.Buffer
	if err := run(context.Background(), []string{"token", "--email", "admin@pergola.local", "--days", "1"},
		func(k string) (string, bool) { v, ok := env[k]; return v, ok }, &out); err != nil {
		t.Fatalf("pergola token: %v", err)
	}
	me := s.call(t, "GET", "/api/me", strings.TrimSpace(out.String()), nil).must(t, 200)
	if str(me.data, "email") != "admin@pergola.local" {
		t.Fatalf("the new token is not the admin's: %v", me.data)
	}
	s.call(t, "GET", "/api/admin/users", strings.TrimSpace(out.String()), nil).must(t, 200)

	var none bytes.Buffer
	env["PERGOLA_DATA_DIR"] = t.TempDir()
	err := run(context.Background(), []string{"token"}, func(k string) (string, bool) { v, ok := env[k]; return v, ok }, &none)
	if err == nil || !strings.Contains(err.Error(), "no database at") {
		t.Fatalf("pergola token on an empty data directory: %v; want an error saying there is no database", err)
	}
}
