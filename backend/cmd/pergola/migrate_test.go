package main

import (
	"bytes"
	"context"
	"strings"
	"testing"
)

// TestMigrateCommand runs `pergola migrate --status`, `migrate` and again
// `migrate` on an empty data directory.
func TestMigrateCommand(t *testing.T) {
	env := map[string]string{"PERGOLA_DATA_DIR": t.TempDir()}
	lookup := func(k string) (string, bool) { v, ok := env[k]; return v, ok }
	run1 := func(args ...string) string {
		t.Helper()
		var out bytes.Buffer
		if err := run(context.Background(), args, lookup, &out); err != nil {
			t.Fatalf("pergola %v: %v", args, err)
		}
		return out.String()
	}
	if status := run1("migrate", "--status"); !strings.Contains(status, "0001 identity_and_models") || !strings.Contains(status, "pending") {
		t.Fatalf("status before migrating:\n%s", status)
	}
	if applied := run1("migrate"); !strings.Contains(applied, "applied 0001_identity_and_models") || !strings.Contains(applied, "0003_conversations") {
		t.Fatalf("migrate:\n%s", applied)
	}
	if again := run1("migrate"); !strings.Contains(again, "up to date") {
		t.Fatalf("second migrate:\n%s", again)
	}
	if status := run1("migrate", "--status"); strings.Contains(status, "pending") {
		t.Fatalf("status after migrating still has pending migrations:\n%s", status)
	}
	var out bytes.Buffer
	if err := run(context.Background(), []string{"frobnicate"}, lookup, &out); err == nil || !strings.Contains(err.Error(), "unknown command") {
		t.Fatalf("unknown command: %v", err)
	}
}
