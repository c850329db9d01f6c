package plugin_test

import (
	"bytes"
	"context"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/cloudwego/eino/components/tool"
	identityapp "github.com/pergola-ai/pergola/application/identity"
	pluginapp "github.com/pergola-ai/pergola/application/plugin"

	"github.com/pergola-ai/pergola/domain/bot"
	"github.com/pergola-ai/pergola/domain/plugin"
	"github.com/pergola-ai/pergola/infra/secret"
	"github.com/pergola-ai/pergola/infra/sqlstore"
	"github.com/pergola-ai/pergola/plugins"
)

// TestCatalogOfTheRealBuiltins stores the shipped built-ins, checks every
// manifest turns into tools with schemas, and calls two of them the way a
// bot does.
func TestCatalogOfTheRealBuiltins(t *testing.T) {
	ctx := context.Background()
	box, _ := secret.NewBox(bytes.Repeat([]byte{5}, secret.KeySize))
	db, err := sqlstore.Open(ctx, sqlstore.Config{SQLitePath: filepath.Join(t.TempDir(), "p.db"), Cipher: box})
	mustNot(t, err)
	defer db.Close()
	_, err = db.Migrate(ctx)
	mustNot(t, err)
	var list []pluginapp.Builtin
	fixed := func() time.Time { return time.Date(2026, 5, 1, 12, 0, 0, 0, time.UTC) }
	for _, b := range plugins.Catalog(plugins.Deps{Now: fixed}) {
		list = append(list, pluginapp.Builtin{Key: b.ID, Name: b.Name, Description: b.Description, OpenAPI: b.OpenAPI, Invoke: b.Invoke})
	}
	svc := pluginapp.New(pluginapp.Deps{Store: db.Plugins(), Stats: db.Plugins(), Access: identityapp.New(db.Users(), db.Workspaces(), db.Tokens()), Builtins: list})
	mustNot(t, svc.SyncCatalog(ctx))
	mustNot(t, svc.SyncCatalog(ctx)) // a restart refreshes in place
	stored, total, err := db.Plugins().ListPlugins(ctx, plugin.ListFilter{Catalog: true})
	mustNot(t, err)
	if int(total) != len(list) || total < 5 {
		t.Fatalf("catalog holds %d plugins, want %d", total, len(list))
	}
	for _, p := range stored {
		if !p.IsPublished() || len(p.Draft.Tools) == 0 {
			t.Errorf("built-in %s: %+v", p.Name, p)
		}
		for _, tl := range p.Draft.Tools {
			if tl.Schema["type"] != "object" || tl.Description == "" {
				t.Errorf("built-in %s tool %s: schema %v", p.Name, tl.Name, tl.Schema)
			}
		}
	}
	b := &bot.Bot{ID: 1, WorkspaceID: 42}
	tools, err := svc.BotTools(ctx, b, &bot.Config{Plugins: []bot.PluginTool{
		{PluginID: pluginapp.CatalogID("calculator"), Tool: "evaluate", Version: "1"},
		{PluginID: pluginapp.CatalogID("time"), Tool: "now", Version: "1"},
	}})
	mustNot(t, err)
	if len(tools) != 2 {
		t.Fatalf("tools = %d", len(tools))
	}
	out, err := call(t, tools[0].(tool.InvokableTool), `{"expression":"(1200 * 0.07) / 12"}`)
	mustNot(t, err)
	if !strings.Contains(out, "7") {
		t.Errorf("calculator = %s", out)
	}
	out, err = call(t, tools[1].(tool.InvokableTool), `{"timezone":"Europe/Paris"}`)
	mustNot(t, err)
	if !strings.Contains(out, "2026-05-01T14:00:00+02:00") {
		t.Errorf("time now = %s", out)
	}
	_, err = call(t, tools[0].(tool.InvokableTool), `{}`)
	wantText(t, err, `missing required "expression"`)
}
