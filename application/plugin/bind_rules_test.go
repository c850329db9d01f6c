package plugin_test

import (
	"context"
	"testing"

	"github.com/google/go-cmp/cmp"

	pluginapp "github.com/pergola-ai/pergola/application/plugin"
	"github.com/pergola-ai/pergola/domain/bot"
	"github.com/pergola-ai/pergola/domain/plugin"
)

func TestBindPlugins(t *testing.T) {
	e := newEnv(t)
	ctx := context.Background()
	pets := e.pets(t, "Pets", plugin.Auth{})
	echo := pluginapp.CatalogID("echo")
	foreign, _, err := e.svc.Create(ctx, e.stranger, e.other.ID, pluginapp.Input{Name: "Theirs", OpenAPI: petsDoc, ServerURL: "https://x.io"})
	mustNot(t, err)

	// A draft binds the plugin's draft; publishing pins the latest version.
	draft := []bot.PluginTool{{PluginID: pets.ID, Tool: "getPet"}, {PluginID: echo, Tool: "say"}}
	got, err := e.svc.BindPlugins(ctx, e.ws.ID, draft, false)
	mustNot(t, err)
	if diff := cmp.Diff(draft, got); diff != "" {
		t.Errorf("draft binding (-want +got):\n%s", diff)
	}
	_, err = e.svc.BindPlugins(ctx, e.ws.ID, draft, true)
	wantField(t, err, "plugins[0].plugin_id", "is not published; publish it first (POST /api/plugins/"+pets.Label()+"/publish)")
	_, err = e.svc.Publish(ctx, e.owner, pets.ID)
	mustNot(t, err)
	_, err = e.svc.Publish(ctx, e.owner, pets.ID)
	mustNot(t, err)
	got, err = e.svc.BindPlugins(ctx, e.ws.ID, draft, true)
	mustNot(t, err)
	want := []bot.PluginTool{{PluginID: pets.ID, Tool: "getPet", Version: "2"}, {PluginID: echo, Tool: "say", Version: "1"}}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("published binding (-want +got):\n%s", diff)
	}

	cases := []struct {
		name  string
		tools []bot.PluginTool
		field string
		text  string
	}{
		{"unknown plugin", []bot.PluginTool{{PluginID: 999, Tool: "x"}}, "plugins[0].plugin_id", "plugin 999 does not exist in this workspace or the catalog"},
		{"another workspace's plugin", []bot.PluginTool{{PluginID: foreign.ID, Tool: "getPet"}}, "plugins[0].plugin_id", "does not exist in this workspace"},
		{"unknown tool", []bot.PluginTool{{PluginID: pets.ID, Tool: "nope"}}, "plugins[0].tool", `has no tool "nope" in its draft; its tools are big, listPets`},
		{"unknown version", []bot.PluginTool{{PluginID: pets.ID, Tool: "getPet", Version: "7"}}, "plugins[0].version", "has no version 7; its latest is 2"},
		{"bad version", []bot.PluginTool{{PluginID: pets.ID, Tool: "getPet", Version: "v1"}}, "plugins[0].version", "must be a published version number"},
		{"same tool twice", []bot.PluginTool{{PluginID: pets.ID, Tool: "getPet"}, {PluginID: pets.ID, Tool: "getPet", Version: "1"}}, "plugins[1].tool", "plugins[0] already binds a tool named"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			_, err := e.svc.BindPlugins(ctx, e.ws.ID, tc.tools, false)
			wantField(t, err, tc.field, tc.text)
		})
	}

	t.Run("tools of another workspace's plugin are left out", func(t *testing.T) {
		tools, err := e.svc.BotTools(ctx, &bot.Bot{ID: 9, WorkspaceID: e.ws.ID}, &bot.Config{Plugins: []bot.PluginTool{{PluginID: foreign.ID, Tool: "getPet"}}})
		mustNot(t, err)
		if len(tools) != 0 {
			t.Errorf("a bot got %d tools of another workspace's plugin", len(tools))
		}
	})
	t.Run("disabled by an administrator", func(t *testing.T) {
		_, err := e.svc.SetToolEnabled(ctx, e.admin, pets.ID, "getPet", false)
		mustNot(t, err)
		_, err = e.svc.BindPlugins(ctx, e.ws.ID, draft, false)
		wantField(t, err, "plugins[0].tool", "tool getPet of plugin")
		_, err = e.svc.SetEnabled(ctx, e.admin, echo, false)
		mustNot(t, err)
		_, err = e.svc.BindPlugins(ctx, e.ws.ID, []bot.PluginTool{{PluginID: echo, Tool: "say"}}, false)
		wantField(t, err, "plugins[0].plugin_id", "(Echo) is disabled by an administrator")
	})
}
