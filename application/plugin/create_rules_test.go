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

func TestCreateRegistersAnOpenAPIDocument(t *testing.T) {
	e := newEnv(t)
	ctx := context.Background()
	pl, warnings, err := e.svc.Create(ctx, e.member, e.ws.ID, pluginapp.Input{OpenAPI: petsDoc,
		Auth: plugin.Auth{Type: plugin.AuthAPIKey, Name: "X-Api-Key", Key: "k-123"}})
	mustNot(t, err)
	if pl.Name != "Pets" || pl.Description != "A pet shop." || pl.Kind != plugin.KindOpenAPI || !pl.Enabled || pl.IsPublished() {
		t.Errorf("plugin = %+v", pl)
	}
	if got := strings.Join(pl.Draft.ToolNames(), ","); got != "big,listPets,addPet,getPet,redirect,secure" {
		t.Errorf("tools = %s", got)
	}
	if len(warnings) != 0 || pl.Auth.In != plugin.KeyInHeader || pl.CreatorID != e.member.UserID {
		t.Errorf("warnings %v, auth %+v", warnings, pl.Auth)
	}
	got, err := e.svc.Get(ctx, e.owner, pl.ID)
	mustNot(t, err)
	if got.Draft.Source != petsDoc || got.Auth.Key != "k-123" {
		t.Errorf("stored = %+v", got)
	}
}

func TestCreateRefusesBadInput(t *testing.T) {
	e := newEnv(t)
	ctx := context.Background()
	cases := []struct {
		name  string
		in    pluginapp.Input
		field string
		text  string
	}{
		{"no document", pluginapp.Input{Name: "x"}, "openapi", "is required"},
		{"not a document", pluginapp.Input{OpenAPI: "hello: [", Name: "x"}, "openapi", "neither valid JSON nor valid YAML"},
		{"swagger 2", pluginapp.Input{OpenAPI: `{"swagger":"2.0"}`, Name: "x"}, "openapi", "Swagger 2.0"},
		{"huge document", pluginapp.Input{OpenAPI: "openapi: 3.0.3\nx: " + strings.Repeat("a", plugin.MaxDocumentBytes), Name: "x"}, "openapi", "1 MiB"},
		{"operation error", pluginapp.Input{OpenAPI: strings.Replace(petsDoc, "required: true, schema: {type: integer}}", "schema: {type: integer}}", 1), Name: "x"},
			"openapi", "GET /pets/{petId} (getPet): parameters[0] (petId): a path parameter must have required: true"},
		{"unsupported auth", pluginapp.Input{OpenAPI: petsDoc, Auth: plugin.Auth{Type: "digest"}}, "auth.type", `unsupported auth type "digest"`},
		{"api key without key", pluginapp.Input{OpenAPI: petsDoc, Auth: plugin.Auth{Type: plugin.AuthAPIKey, Name: "k"}}, "auth.key", "is required"},
		{"unknown kind", pluginapp.Input{Kind: "grpc", OpenAPI: petsDoc}, "kind", "must be openapi or mcp"},
		{"long name", pluginapp.Input{OpenAPI: petsDoc, Name: strings.Repeat("n", 101)}, "name", "at most 100"},
		{"bad server_url", pluginapp.Input{OpenAPI: petsDoc, ServerURL: "file:///etc"}, "server_url", "absolute http(s) URL"},
		{"mcp without url", pluginapp.Input{Kind: plugin.KindMCP, Name: "m"}, "server_url", "absolute http(s) URL"},
		{"mcp bad transport", pluginapp.Input{Kind: plugin.KindMCP, Name: "m", ServerURL: "http://x.io/mcp", Transport: "ws"}, "transport", "streamable, sse or stdio"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			_, _, err := e.svc.Create(ctx, e.owner, e.ws.ID, tc.in)
			wantField(t, err, tc.field, tc.text)
		})
	}
	if n := e.api.count(); n != 0 {
		t.Errorf("registration called the API %d times", n)
	}
}

func TestCreateAccessAndNames(t *testing.T) {
	e := newEnv(t)
	ctx := context.Background()
	in := pluginapp.Input{OpenAPI: petsDoc, Name: "Pets"}
	_, _, err := e.svc.Create(ctx, e.stranger, e.ws.ID, in)
	wantErr(t, err, errs.ErrForbidden, "not a member")
	_, _, err = e.svc.Create(ctx, identity.Principal{UserID: e.owner.UserID, Scopes: []string{identity.ScopeBot}}, e.ws.ID, in)
	wantErr(t, err, errs.ErrForbidden, `lacks the "plugin" scope`)
	_, _, err = e.svc.Create(ctx, e.owner, 0, in)
	wantField(t, err, "workspace_id", "is required")
	_, _, err = e.svc.Create(ctx, e.owner, e.ws.ID, in)
	mustNot(t, err)
	_, _, err = e.svc.Create(ctx, e.member, e.ws.ID, pluginapp.Input{OpenAPI: petsDoc, Name: "pets"})
	wantErr(t, err, errs.ErrConflict, `a plugin named "pets" already exists`)
}

func TestCreateWarnsAboutOperationsLeftOut(t *testing.T) {
	e := newEnv(t)
	doc := petsDoc + `  /upload:
    post:
      operationId: upload
      requestBody:
        content:
          multipart/form-data:
            schema: {type: object}
`
	pl, warnings, err := e.svc.Create(context.Background(), e.owner, e.ws.ID, pluginapp.Input{OpenAPI: doc})
	mustNot(t, err)
	if len(warnings) != 1 || !strings.Contains(warnings[0], "POST /upload (upload): skipped") {
		t.Errorf("warnings = %q", warnings)
	}
	if _, ok := pl.Draft.Tool("upload"); ok {
		t.Error("the multipart operation became a tool")
	}
}

func TestCreateDiscoversAnMCPServer(t *testing.T) {
	e := newEnv(t)
	ctx := context.Background()
	pl, _, err := e.svc.Create(ctx, e.owner, e.ws.ID, pluginapp.Input{Kind: plugin.KindMCP, Name: "Weather",
		ServerURL: "https://mcp.example/mcp", Transport: plugin.TransportSSE, Auth: plugin.Auth{Type: plugin.AuthBearer, Token: "mcp-token"}})
	mustNot(t, err)
	if got := strings.Join(pl.Draft.ToolNames(), ","); got != "weather_get,fail" {
		t.Fatalf("tools = %s", got)
	}
	w, _ := pl.Draft.Tool("weather_get")
	if w.OperationID != "weather.get" || w.Schema["required"] == nil || pl.Draft.Transport != plugin.TransportSSE {
		t.Errorf("tool = %+v, spec = %+v", w, pl.Draft)
	}
	f, _ := pl.Draft.Tool("fail")
	if f.Schema["type"] != "object" {
		t.Errorf("a tool without schema got %v", f.Schema)
	}
	dial := e.mcp.dials[0]
	if dial.URL != "https://mcp.example/mcp" || dial.Headers["Authorization"] != "Bearer mcp-token" || dial.Transport != "sse" {
		t.Errorf("dial = %+v", dial)
	}
	e.mcp.refused = true
	_, _, err = e.svc.Create(ctx, e.owner, e.ws.ID, pluginapp.Input{Kind: plugin.KindMCP, Name: "Inside", ServerURL: "http://10.0.0.1/mcp"})
	wantField(t, err, "server_url", "cannot connect to the MCP server at http://10.0.0.1/mcp: egress refused: 10.0.0.1 is a private address")
}
