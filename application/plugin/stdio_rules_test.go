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

func stdioInput() pluginapp.Input {
	return pluginapp.Input{Kind: plugin.KindMCP, Name: "local", Transport: plugin.TransportStdio,
		Command: "/usr/bin/python3", Args: []string{"-c", "serve()"}, Env: map[string]string{"API_KEY": "s3cret"}}
}

// stdioEnv is newEnv with the administrator a member of the team.
func stdioEnv(t *testing.T) *env {
	e := newEnv(t)
	mustNot(t, e.db.Workspaces().AddMember(context.Background(), &identity.Member{WorkspaceID: e.ws.ID, UserID: e.admin.UserID, Role: identity.RoleMember}))
	return e
}

func TestStdioServersAreForAdministratorsOnly(t *testing.T) {
	e := stdioEnv(t)
	ctx := context.Background()
	_, _, err := e.svc.Create(ctx, e.member, e.ws.ID, stdioInput())
	wantErr(t, err, errs.ErrForbidden, "only platform administrators may register or change stdio MCP servers, because they run a command")
	limited := e.admin
	limited.Scopes = []string{identity.ScopePlugin}
	_, _, err = e.svc.Create(ctx, limited, e.ws.ID, stdioInput())
	wantErr(t, err, errs.ErrForbidden, `needs a token with the "admin" scope`)
	if len(e.mcp.dials) != 0 {
		t.Fatalf("a refused registration started the server: %+v", e.mcp.dials)
	}

	pl, _, err := e.svc.Create(ctx, e.admin, e.ws.ID, stdioInput())
	mustNot(t, err)
	d := e.mcp.dials[0]
	if d.Transport != "stdio" || d.Command != "/usr/bin/python3" || len(d.Args) != 2 || d.Env["API_KEY"] != "s3cret" {
		t.Fatalf("dialed %+v", d)
	}
	got, err := e.svc.Get(ctx, e.member, pl.ID)
	mustNot(t, err)
	if got.Draft.Command != "/usr/bin/python3" || got.Env["API_KEY"] != "s3cret" || got.Draft.Tools[0].Name != "weather_get" {
		t.Fatalf("stored %+v", got)
	}

	args := []string{"-c", "other()"}
	_, _, err = e.svc.Update(ctx, e.member, pl.ID, pluginapp.Patch{Args: &args})
	wantErr(t, err, errs.ErrForbidden, "only platform administrators")
	name := "renamed"
	_, _, err = e.svc.Update(ctx, e.member, pl.ID, pluginapp.Patch{Name: &name})
	mustNot(t, err)
	_, err = e.svc.Refresh(ctx, e.member, pl.ID) // the same command again
	mustNot(t, err)

	httpPlugin, _, err := e.svc.Create(ctx, e.member, e.ws.ID, pluginapp.Input{Kind: plugin.KindMCP, Name: "remote", ServerURL: "http://x.io/mcp"})
	mustNot(t, err)
	stdio := plugin.TransportStdio
	_, _, err = e.svc.Update(ctx, e.member, httpPlugin.ID, pluginapp.Patch{Transport: &stdio})
	wantErr(t, err, errs.ErrForbidden, "only platform administrators")
	cmd := "/usr/bin/python3"
	updated, _, err := e.svc.Update(ctx, e.admin, httpPlugin.ID, pluginapp.Patch{Transport: &stdio, Command: &cmd})
	mustNot(t, err)
	if updated.Draft.ServerURL != "" || updated.Draft.Command != cmd {
		t.Fatalf("switched to stdio: %+v", updated.Draft)
	}
	streamable := plugin.TransportStreamable
	url := "http://x.io/mcp"
	back, _, err := e.svc.Update(ctx, e.member, updated.ID, pluginapp.Patch{Transport: &streamable, ServerURL: &url})
	mustNot(t, err)
	if back.Draft.Command != "" || len(back.Env) != 0 || back.Draft.ServerURL != url {
		t.Fatalf("switched back: %+v env %v", back.Draft, back.Env)
	}
}

func TestStdioServersRefuseBadCommandLines(t *testing.T) {
	e := stdioEnv(t)
	ctx := context.Background()
	cases := []struct {
		name  string
		edit  func(*pluginapp.Input)
		field string
		text  string
	}{
		{"no command", func(in *pluginapp.Input) { in.Command = "" }, "command", "is required"},
		{"relative command", func(in *pluginapp.Input) { in.Command = "python3" }, "command", "absolute path under /usr"},
		{"outside /usr", func(in *pluginapp.Input) { in.Command = "/opt/x" }, "command", "absolute path under /usr"},
		{"bad variable", func(in *pluginapp.Input) { in.Env = map[string]string{"1X": "v"} }, "env", "not a valid variable name"},
		{"a URL too", func(in *pluginapp.Input) { in.ServerURL = "http://x.io" }, "server_url", "has no URL"},
		{"command without stdio", func(in *pluginapp.Input) { in.Transport = "" }, "command", "only the stdio transport runs a command"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			in := stdioInput()
			c.edit(&in)
			if in.Transport == "" {
				in.ServerURL = "http://x.io/mcp"
			}
			_, _, err := e.svc.Create(ctx, e.admin, e.ws.ID, in)
			wantErr(t, err, errs.ErrInvalid, c.text)
			if !strings.HasPrefix(err.Error(), c.field+": ") {
				t.Errorf("error %q does not name %s", err, c.field)
			}
		})
	}
}
