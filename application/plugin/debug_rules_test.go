package plugin_test

import (
	"context"
	"strings"
	"testing"

	pluginapp "github.com/pergola-ai/pergola/application/plugin"
	"github.com/pergola-ai/pergola/domain/errs"
	"github.com/pergola-ai/pergola/domain/plugin"
)

func TestDebugShowsTheRequestWithSecretsMasked(t *testing.T) {
	e := newEnv(t)
	ctx := context.Background()
	for _, auth := range []plugin.Auth{
		{Type: plugin.AuthAPIKey, In: plugin.KeyInQuery, Name: "key", Key: "sekret/1"},
		{Type: plugin.AuthAPIKey, Name: "X-Api-Key", Key: "sekret-2"},
		{Type: plugin.AuthBasic, Username: "ann", Password: "sekret-3"},
		{Type: plugin.AuthOAuth2Client, TokenURL: e.api.srv.URL + "/oauth/token", ClientID: "cid", ClientSecret: "csecret"},
	} {
		t.Run(string(auth.Type), func(t *testing.T) {
			pl := e.pets(t, "Debug "+string(auth.Type)+auth.In, auth)
			run, err := e.svc.Debug(ctx, e.member, pl.ID, "listPets", `{"limit":2}`, 0)
			mustNot(t, err)
			if run.Error != "" || run.Response == nil || run.Response.Status != 200 || !strings.Contains(run.Result, "Rex") || run.Duration <= 0 {
				t.Fatalf("run = %+v", run)
			}
			shown := run.Request.URL + " " + strings.Join(values(run.Request.Headers), " ")
			for _, secret := range []string{"sekret", "tok-", "YW5uOnNla3JldC0z"} {
				if strings.Contains(shown, secret) {
					t.Errorf("the debug run shows a secret: %s", shown)
				}
			}
			if !strings.Contains(shown, "****") || run.Request.Method != "GET" || !strings.Contains(run.Request.URL, "limit=2") {
				t.Errorf("request = %+v", run.Request)
			}
		})
	}
}

func values(m map[string]string) []string {
	var out []string
	for k, v := range m {
		out = append(out, k+": "+v)
	}
	return out
}

func TestDebugReportsFailuresAndRefusesBadInput(t *testing.T) {
	e := newEnv(t)
	ctx := context.Background()
	pl := e.pets(t, "Pets", plugin.Auth{})
	run, err := e.svc.Debug(ctx, e.owner, pl.ID, "getPet", `{"petId":404}`, 0)
	mustNot(t, err)
	if run.Response.Status != 404 || !strings.Contains(run.Error, "HTTP 404 Not Found") || run.Result != "" {
		t.Errorf("run = %+v", run)
	}
	_, err = e.svc.Debug(ctx, e.owner, pl.ID, "nope", `{}`, 0)
	wantErr(t, err, errs.ErrNotFound, `plugin `+pl.Label()+` has no tool "nope"; its tools are big, listPets`)
	_, err = e.svc.Debug(ctx, e.owner, pl.ID, "getPet", `{"petId":"x"}`, 0)
	wantErr(t, err, errs.ErrInvalid, `"petId" must be an integer`)
	_, err = e.svc.Debug(ctx, e.owner, pl.ID, "getPet", `{"petId":1}`, 3)
	wantErr(t, err, errs.ErrNotFound, "version 3 of plugin")
	_, err = e.svc.Debug(ctx, e.stranger, pl.ID, "getPet", `{"petId":1}`, 0)
	wantErr(t, err, errs.ErrNotFound, "plugin "+pl.Label()+" not found")
	_, err = e.svc.SetToolEnabled(ctx, e.admin, pl.ID, "getPet", false)
	mustNot(t, err)
	_, err = e.svc.Debug(ctx, e.owner, pl.ID, "getPet", `{"petId":1}`, 0)
	wantErr(t, err, errs.ErrForbidden, "disabled by an administrator")

	strict := newEnv(t, "203.0.113.9")
	spl, _, err := strict.svc.Create(ctx, strict.owner, strict.ws.ID, pluginapp.Input{OpenAPI: petsDoc, ServerURL: strict.api.srv.URL + "/v1"})
	mustNot(t, err)
	run, err = strict.svc.Debug(ctx, strict.owner, spl.ID, "getPet", `{"petId":1}`, 0)
	mustNot(t, err)
	if run.Response != nil || !strings.Contains(run.Error, "egress refused: 127.0.0.1 is a loopback address") {
		t.Errorf("refused run = %+v", run)
	}
}

func TestDebugRunsMCPAndBuiltinTools(t *testing.T) {
	e := newEnv(t)
	ctx := context.Background()
	pl, _, err := e.svc.Create(ctx, e.owner, e.ws.ID, pluginapp.Input{Kind: plugin.KindMCP, Name: "Weather",
		ServerURL: "https://mcp.example/mcp", Auth: plugin.Auth{Type: plugin.AuthBearer, Token: "mcp-secret"}})
	mustNot(t, err)
	run, err := e.svc.Debug(ctx, e.owner, pl.ID, "weather_get", `{"city":"Rome"}`, 0)
	mustNot(t, err)
	if run.Result != "sunny in Rome" || run.Request.Method != "tools/call" || run.Request.Headers["Authorization"] != "Bearer ****" ||
		run.Request.Body != `{"arguments":{"city":"Rome"},"name":"weather.get"}` {
		t.Errorf("run = %+v", run)
	}
	run, err = e.svc.Debug(ctx, e.owner, pluginapp.CatalogID("echo"), "say", `{"text":"yo"}`, 1)
	mustNot(t, err)
	if run.Result != "say: yo" || run.Request.URL != "builtin://echo/say" {
		t.Errorf("built-in run = %+v", run)
	}
}
