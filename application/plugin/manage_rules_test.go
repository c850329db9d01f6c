package plugin_test

import (
	"context"
	"strings"
	"testing"

	pluginapp "github.com/pergola-ai/pergola/application/plugin"
	"github.com/pergola-ai/pergola/domain/errs"
	"github.com/pergola-ai/pergola/domain/identity"
	"github.com/pergola-ai/pergola/domain/plugin"
)

func TestUpdateKeepsSecretsAndRebuildsTools(t *testing.T) {
	e := newEnv(t)
	ctx := context.Background()
	pl := e.pets(t, "Pets", plugin.Auth{Type: plugin.AuthAPIKey, Name: "X-Api-Key", Key: "old-key"})
	name := "Pet shop"
	got, _, err := e.svc.Update(ctx, e.member, pl.ID, pluginapp.Patch{Name: &name, Auth: &plugin.Auth{Type: plugin.AuthAPIKey, In: plugin.KeyInQuery, Name: "key"}})
	mustNot(t, err)
	if got.Name != name || got.Auth.Key != "old-key" || got.Auth.In != plugin.KeyInQuery || got.DraftRevision != 2 {
		t.Errorf("updated = %+v", got)
	}
	_, _, err = e.svc.Update(ctx, e.member, pl.ID, pluginapp.Patch{Auth: &plugin.Auth{Type: plugin.AuthBearer}})
	wantField(t, err, "auth.token", "is required")

	server := "https://api.other.example/v2"
	got, _, err = e.svc.Update(ctx, e.owner, pl.ID, pluginapp.Patch{ServerURL: &server})
	mustNot(t, err)
	if tl, _ := got.Draft.Tool("getPet"); tl.ServerURL != server || got.Draft.ServerURL != server {
		t.Errorf("server = %+v", got.Draft)
	}
	bad := "openapi: 3.0.3\npaths: {}"
	_, _, err = e.svc.Update(ctx, e.owner, pl.ID, pluginapp.Patch{OpenAPI: &bad})
	wantField(t, err, "openapi", "has no operations")
	_, _, err = e.svc.Update(ctx, e.stranger, pl.ID, pluginapp.Patch{Name: &name})
	wantErr(t, err, errs.ErrNotFound, "plugin "+pl.Label()+" not found")
	_, _, err = e.svc.Update(ctx, e.owner, pluginapp.CatalogID("echo"), pluginapp.Patch{Name: &name})
	wantErr(t, err, errs.ErrForbidden, "is a built-in plugin of the catalog and cannot be changed")
}

func TestPublishListAndVersions(t *testing.T) {
	e := newEnv(t)
	ctx := context.Background()
	pl := e.pets(t, "Pets", plugin.Auth{})
	v, err := e.svc.Publish(ctx, e.member, pl.ID)
	mustNot(t, err)
	if v.Number != 1 || len(v.Spec.Tools) != 6 {
		t.Fatalf("version = %+v", v)
	}
	got, err := e.svc.GetVersion(ctx, e.owner, pl.ID, 1)
	mustNot(t, err)
	if got.Spec.Source != petsDoc {
		t.Errorf("version source = %q", got.Spec.Source)
	}
	vs, err := e.svc.ListVersions(ctx, e.owner, pl.ID)
	mustNot(t, err)
	if len(vs) != 1 {
		t.Errorf("versions = %+v", vs)
	}
	_, err = e.svc.Publish(ctx, e.owner, pluginapp.CatalogID("echo"))
	wantErr(t, err, errs.ErrForbidden, "built-in")

	_, _, err = e.svc.Create(ctx, e.owner, e.ws.ID, pluginapp.Input{Name: "Second", OpenAPI: petsDoc})
	mustNot(t, err)
	all, total, err := e.svc.List(ctx, e.member, e.ws.ID, pluginapp.AllScopes, identity.Page{Number: 1, Size: 2})
	mustNot(t, err)
	if total != 3 || len(all) != 2 || all[0].Name != "Echo" || all[1].Name != "Second" {
		t.Errorf("page 1 = %d %v", total, names(all))
	}
	page2, _, err := e.svc.List(ctx, e.member, e.ws.ID, pluginapp.AllScopes, identity.Page{Number: 2, Size: 2})
	mustNot(t, err)
	if len(page2) != 1 || page2[0].Name != "Pets" {
		t.Errorf("page 2 = %v", names(page2))
	}
	own, n, err := e.svc.List(ctx, e.member, e.ws.ID, pluginapp.Workspace, identity.Page{Number: 1, Size: 10})
	mustNot(t, err)
	cat, m, err2 := e.svc.List(ctx, e.member, e.ws.ID, pluginapp.Catalog, identity.Page{Number: 1, Size: 10})
	mustNot(t, err2)
	if n != 2 || len(own) != 2 || m != 1 || len(cat) != 1 {
		t.Errorf("own %v (%d), catalog %v (%d)", names(own), n, names(cat), m)
	}
	_, _, err = e.svc.List(ctx, e.stranger, e.ws.ID, pluginapp.AllScopes, identity.Page{Number: 1, Size: 10})
	wantErr(t, err, errs.ErrForbidden, "not a member")
	// Built-ins are readable by anyone with the plugin scope.
	_, err = e.svc.Get(ctx, e.stranger, pluginapp.CatalogID("echo"))
	mustNot(t, err)
}

func names(list []plugin.Plugin) string {
	var out []string
	for _, p := range list {
		out = append(out, p.Name)
	}
	return strings.Join(out, ",")
}

func TestDeleteNeedsCreatorOrAdmin(t *testing.T) {
	e := newEnv(t)
	ctx := context.Background()
	pl := e.pets(t, "Pets", plugin.Auth{})
	wantErr(t, e.svc.Delete(ctx, e.member, pl.ID, false), errs.ErrForbidden, "only the plugin's creator or an admin")
	wantErr(t, e.svc.Delete(ctx, e.stranger, pl.ID, false), errs.ErrNotFound, "not found")
	mustNot(t, e.svc.Delete(ctx, e.owner, pl.ID, false))
	_, err := e.svc.Get(ctx, e.owner, pl.ID)
	wantErr(t, err, errs.ErrNotFound, "not found")
}

func TestRefreshRediscoversMCPTools(t *testing.T) {
	e := newEnv(t)
	ctx := context.Background()
	pl, _, err := e.svc.Create(ctx, e.owner, e.ws.ID, pluginapp.Input{Kind: plugin.KindMCP, Name: "Weather", ServerURL: "https://mcp.example/mcp"})
	mustNot(t, err)
	e.mcp.mu.Lock()
	e.mcp.tools = append(e.mcp.tools, pluginapp.MCPTool{Name: "forecast", Description: "Tomorrow"})
	e.mcp.mu.Unlock()
	got, err := e.svc.Refresh(ctx, e.member, pl.ID)
	mustNot(t, err)
	if strings.Join(got.Draft.ToolNames(), ",") != "weather_get,fail,forecast" {
		t.Errorf("tools = %v", got.Draft.ToolNames())
	}
	pets := e.pets(t, "Pets", plugin.Auth{})
	_, err = e.svc.Refresh(ctx, e.owner, pets.ID)
	wantField(t, err, "kind", "only MCP plugins discover their tools")
}

func TestAdminSeesEveryPluginWithItsCalls(t *testing.T) {
	e := newEnv(t)
	ctx := context.Background()
	pl := e.pets(t, "Pets", plugin.Auth{})
	get := e.tool(t, pl, "getPet", "")
	for _, args := range []string{`{"petId":1}`, `{"petId":2}`, `{"petId":404}`} {
		_, _ = call(t, get, args)
	}
	list, total, err := e.svc.AdminList(ctx, e.admin, 0, identity.Page{Number: 1, Size: 50})
	mustNot(t, err)
	if total != 2 || len(list) != 2 {
		t.Fatalf("admin list = %d %+v", total, list)
	}
	var stats []plugin.ToolStats
	for _, a := range list {
		if a.Plugin.ID == pl.ID {
			stats = a.Stats
		}
	}
	if len(stats) != 1 || stats[0].Tool != "getPet" || stats[0].Calls != 3 || stats[0].Errors != 1 ||
		!strings.Contains(stats[0].LastError, "HTTP 404") || stats[0].MaxLatency <= 0 {
		t.Errorf("stats = %+v", stats)
	}
	_, _, err = e.svc.AdminList(ctx, e.owner, 0, identity.Page{Number: 1, Size: 50})
	wantErr(t, err, errs.ErrForbidden, "platform administrator")
	_, err = e.svc.SetToolEnabled(ctx, e.admin, pl.ID, "nope", false)
	wantErr(t, err, errs.ErrNotFound, `has no tool "nope"`)
	_, err = e.svc.SetEnabled(ctx, e.admin, 12345, false)
	wantErr(t, err, errs.ErrNotFound, "plugin 12345 not found")
}
