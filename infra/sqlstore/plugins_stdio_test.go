package sqlstore

import (
	"context"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/pergola-ai/pergola/domain/plugin"
)

// testPluginStdio stores a stdio MCP server: its command line in the
// draft and its versions, its environment sealed in the auth column, kept
// and replaced by updates.
func testPluginStdio(t *testing.T, db *DB, ws, creator int64) {
	ctx := context.Background()
	store := db.Plugins()
	p := &plugin.Plugin{WorkspaceID: ws, CreatorID: creator, Kind: plugin.KindMCP, Name: "Local server", Enabled: true,
		Auth: plugin.Auth{Type: plugin.AuthNone}, Env: map[string]string{"API_KEY": "env-s3cret", "MODE": "test"},
		Draft: plugin.Spec{Transport: plugin.TransportStdio, Command: "/usr/bin/python3", Args: []string{"-c", "serve()"},
			Tools: []plugin.Tool{{Name: "t", OperationID: "t", Schema: map[string]any{"type": "object"}}}}}
	mustNot(t, store.CreatePlugin(ctx, p))
	got, err := store.GetPlugin(ctx, p.ID)
	mustNot(t, err)
	if diff := cmp.Diff(p.Env, got.Env); diff != "" || got.Draft.Command != "/usr/bin/python3" || len(got.Draft.Args) != 2 {
		t.Fatalf("stored %+v (env -want +got %s)", got, diff)
	}
	var raw string
	mustNot(t, db.gorm.Raw("SELECT auth FROM plugins WHERE id = ?", p.ID).Scan(&raw).Error)
	if raw == "" || strings.Contains(raw, "env-s3cret") || strings.Contains(raw, "API_KEY") {
		t.Errorf("environment stored in clear: %q", raw)
	}
	saved, err := store.UpdatePlugin(ctx, ws, p.ID, func(cur *plugin.Plugin) error {
		cur.Env = map[string]string{"API_KEY": "rotated"}
		return nil
	})
	mustNot(t, err)
	got, err = store.GetPlugin(ctx, p.ID)
	mustNot(t, err)
	if saved.Env["API_KEY"] != "rotated" || len(got.Env) != 1 || got.Env["API_KEY"] != "rotated" {
		t.Fatalf("after update %v, stored %v", saved.Env, got.Env)
	}
}
