package bot_test

import (
	"context"
	"testing"

	"github.com/pergola-ai/pergola/domain/bot"
	"github.com/pergola-ai/pergola/domain/errs"
	"github.com/pergola-ai/pergola/domain/identity"
	"github.com/pergola-ai/pergola/domain/variable"
)

func TestCreateFillsDefaults(t *testing.T) {
	e := newEnv(t)
	b := e.create(t, bot.Config{Name: "  Helper  "})
	if b.Draft.Name != "Helper" || b.Draft.Model.ModelID != "plain" || b.Draft.HistoryRounds != bot.DefaultHistoryRounds ||
		b.Draft.MaxToolRounds != bot.DefaultMaxToolRounds || b.Draft.Model.ResponseFormat != "text" {
		t.Errorf("draft = %+v, want trimmed name, the first enabled model and default rounds", b.Draft)
	}
	if b.CreatorID != e.owner.UserID || b.WorkspaceID != e.ws.ID || b.DraftRevision != 1 {
		t.Errorf("bot = %+v", b)
	}
	// A bot with tools defaults to the first enabled model that has them.
	tools := e.create(t, bot.Config{Name: "Memory", Variables: []variable.Definition{{Keyword: "k"}}})
	if tools.Draft.Model.ModelID != "tooly" {
		t.Errorf("model of a bot with variables = %q, want tooly", tools.Draft.Model.ModelID)
	}
}

func TestCreateRefuses(t *testing.T) {
	e := newEnv(t)
	tool := bot.ClientTool{Name: "weather", Parameters: map[string]any{"type": "object"}}
	cases := []struct {
		name         string
		cfg          bot.Config
		field, words string
	}{
		{"no name", bot.Config{}, "name", "required"},
		{"unknown model", bot.Config{Name: "x", Model: bot.ModelSettings{ModelID: "nope"}}, "model.model_id", `"nope" does not exist`},
		{"disabled model", bot.Config{Name: "x", Model: bot.ModelSettings{ModelID: "aaa-off"}}, "model.model_id", "disabled"},
		{"variables on a model without tools", bot.Config{Name: "x", Model: bot.ModelSettings{ModelID: "plain"},
			Variables: []variable.Definition{{Keyword: "k"}}}, "model.model_id", `"plain" does not support tools`},
		{"client tools on a model without tools", bot.Config{Name: "x", Model: bot.ModelSettings{ModelID: "plain"},
			ClientTools: []bot.ClientTool{tool}}, "model.model_id", "does not support tools"},
		{"bad client tool schema", bot.Config{Name: "x", ClientTools: []bot.ClientTool{{Name: "t", Parameters: map[string]any{"type": "array"}}}},
			"client_tools[0].parameters", "object"},
		{"duplicate keyword", bot.Config{Name: "x", Variables: []variable.Definition{{Keyword: "k"}, {Keyword: "k"}}},
			"variables[1].keyword", "defined twice"},
		{"plugins", bot.Config{Name: "x", Plugins: []bot.PluginTool{{PluginID: 1, Tool: "t"}}}, "plugins", "binding plugins is not available yet"},
		{"workflows", bot.Config{Name: "x", Workflows: []bot.WorkflowRef{{WorkflowID: 1}}}, "workflows", "binding workflows is not available yet"},
		{"tables", bot.Config{Name: "x", Tables: []bot.TableRef{{TableID: 1}}}, "tables", "binding tables is not available yet"},
		{"icon", bot.Config{Name: "x", IconURL: "ftp://x"}, "icon_url", "http(s) URL"},
		{"temperature", bot.Config{Name: "x", Model: bot.ModelSettings{Temperature: ptr(3.0)}}, "model.temperature", "between 0 and 2"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			_, err := e.svc.Create(context.Background(), e.owner, e.ws.ID, c.cfg)
			wantField(t, err, c.field, c.words)
		})
	}
	list, total, err := e.svc.List(context.Background(), e.owner, e.ws.ID, 0, identity.Page{})
	mustNot(t, err)
	if total != 0 || len(list) != 0 {
		t.Errorf("refused creates stored %d bots", total)
	}
}

func TestCreateWithoutAnyModel(t *testing.T) {
	e := newEnv(t)
	e.models.list = nil
	_, err := e.svc.Create(context.Background(), e.owner, e.ws.ID, bot.Config{Name: "x"})
	wantField(t, err, "model.model_id", "is required")
}

func TestCreateNeedsScopeAndMembership(t *testing.T) {
	e := newEnv(t)
	ctx := context.Background()
	_, err := e.svc.Create(ctx, withScopes(e.owner, identity.ScopeChat), e.ws.ID, bot.Config{Name: "x"})
	wantErr(t, err, errs.ErrForbidden, `"bot" scope`)
	_, err = e.svc.Create(ctx, e.stranger, e.ws.ID, bot.Config{Name: "x"})
	wantErr(t, err, errs.ErrForbidden, "not a member")
	restricted := e.owner
	restricted.Workspaces = []int64{e.other.ID}
	_, err = e.svc.Create(ctx, restricted, e.ws.ID, bot.Config{Name: "x"})
	wantErr(t, err, errs.ErrForbidden, "not valid for workspace")
	_, err = e.svc.Create(ctx, e.owner, 0, bot.Config{Name: "x"})
	wantField(t, err, "workspace_id", "required")
}

func ptr[T any](v T) *T { return &v }
