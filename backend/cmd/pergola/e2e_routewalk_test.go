package main

import (
	"encoding/json"
	"slices"
	"strings"
	"testing"

	"github.com/pergola-ai/pergola/backend/api"
	"github.com/pergola-ai/pergola/infra/fakellm"
)

// TestEveryRouteRefusesForeignTokens walks every operation of the merged
// OpenAPI document with two tokens of a platform administrator who owns a
// workspace full of objects: one restricted to another workspace, and one
// unrestricted but with a scope the route does not need. Each must get
// 401, 403 or 404 (the routes open to every token must not show the
// foreign workspace); public routes are listed with their reason, and a
// documented route without a scope in backend/api/scopes.go fails.
func TestEveryRouteRefusesForeignTokens(t *testing.T) {
	llm := fakellm.Start(t, fakellm.WithAPIKey(fileModelKey))
	s := startServer(t, map[string]string{"PERGOLA_MODELS_FILE": writeModelsFile(t, llm.BaseURL()), "E2E_FILE_MODEL_KEY": fileModelKey})
	s.call(t, "POST", "/api/admin/models", bootstrapToken, map[string]any{"id": "embed", "provider": "openai",
		"base_url": llm.BaseURL(), "api_key": fileModelKey, "model": "fake-embed", "kind": "embedding"}).must(t, 201)
	f := newWalkFixture(t, s)
	restricted := walkToken(t, s, map[string]any{"name": "only W2", "workspace_ids": []string{f.ids["other"]}})
	narrow := map[string]string{
		"table": walkToken(t, s, map[string]any{"name": "tables only", "scopes": []string{"table"}}),
		"bot":   walkToken(t, s, map[string]any{"name": "bots only", "scopes": []string{"bot"}}),
	}
	scopes := api.RouteScopes()
	routes := documentedRoutes(t)
	slices.SortFunc(routes, func(a, b walkRoute) int { return strings.Compare(a.key(), b.key()) })
	seen := map[string]bool{}
	for _, r := range routes {
		seen[r.key()] = true
		if _, ok := publicRoutes[r.key()]; ok {
			if _, scoped := scopes[r.key()]; scoped {
				t.Errorf("%s is listed public here but has a scope in backend/api/scopes.go", r.key())
			}
			continue
		}
		need, ok := scopes[r.key()]
		if !ok {
			t.Errorf("%s: no scope declared in backend/api/scopes.go (and not public by design)", r.key())
			continue
		}
		walkRestricted(t, s, f, r, restricted)
		walkNarrow(t, s, f, r, need, narrow)
	}
	for k := range scopes {
		if !seen[k] {
			t.Errorf("backend/api/scopes.go names %s, which idl/*.yaml does not document", k)
		}
	}
}

// walkRestricted calls r with a token restricted to another workspace.
func walkRestricted(t *testing.T, s *testServer, f walkFixture, r walkRoute, token string) {
	t.Helper()
	status, body := s.do(t, r.method, f.url(r), token, f.body(r))
	if _, ok := ownReach[r.key()]; ok {
		for _, m := range f.markers {
			if strings.Contains(body, m) {
				t.Errorf("%s with a token restricted to another workspace: the answer (%d) names %q of the foreign workspace: %.300s", r.key(), status, m, body)
			}
		}
		return
	}
	for _, m := range f.markers {
		if strings.Contains(body, m) {
			t.Errorf("%s with a token restricted to another workspace: the answer (%d) names %q of the foreign workspace: %.300s", r.key(), status, m, body)
		}
	}
	if status == 400 && strings.Contains(body, `"code":4000`) {
		// The walk's one generic request did not pass the route's input
		// checks, which run before the workspace check: nothing was read
		// or changed, and nothing of the workspace is named.
		t.Logf("%s: input refused before the workspace check: %.200s", r.key(), body)
		return
	}
	if status != 401 && status != 403 && status != 404 {
		t.Errorf("%s with a token restricted to another workspace: got %d, want 401/403/404: %.300s", r.key(), status, body)
	}
}

// walkNarrow calls r with an unrestricted token whose only scope r does
// not accept; the routes open to every token are skipped.
func walkNarrow(t *testing.T, s *testServer, f walkFixture, r walkRoute, need []string, tokens map[string]string) {
	t.Helper()
	if len(need) == 0 {
		return // open to every token (backend/api/scopes.go anyToken)
	}
	scope := "table"
	if slices.Contains(need, "table") {
		scope = "bot"
	}
	status, body := s.do(t, r.method, f.url(r), tokens[scope], f.body(r))
	if status != 401 && status != 403 && status != 404 {
		t.Errorf("%s with a token of scope %s (it needs %v): got %d, want 401/403/404: %.300s", r.key(), scope, need, status, body)
	}
}

// walkToken creates a personal access token of the bootstrap admin.
func walkToken(t *testing.T, s *testServer, body map[string]any) string {
	t.Helper()
	return str(s.call(t, "POST", "/api/tokens", bootstrapToken, body).must(t, 201).data, "token")
}

// newWalkFixture fills a workspace of the bootstrap administrator with one
// object of each kind, and makes a second workspace for the restricted
// token.
func newWalkFixture(t *testing.T, s *testServer) walkFixture {
	t.Helper()
	admin := bootstrapToken
	create := func(path string, body map[string]any) string {
		t.Helper()
		r := s.call(t, "POST", path, admin, body)
		if r.status != 201 && r.status != 200 {
			t.Fatalf("fixture POST %s: %d %s", path, r.status, r.msg)
		}
		return str(r.data, "id")
	}
	ws := create("/api/workspaces", map[string]any{"name": "walk secret workspace"})
	other := create("/api/workspaces", map[string]any{"name": "walk other"})
	bot := create("/api/bots", map[string]any{"workspace_id": ws, "name": "walk secret bot"})
	table := create("/api/tables", map[string]any{"workspace_id": ws, "name": "walk_secret", "mode": "shared",
		"fields": []map[string]any{{"name": "item", "type": "text"}}})
	rows := s.call(t, "POST", "/api/tables/"+table+"/rows", admin, map[string]any{"rows": []map[string]any{{"values": map[string]any{"item": "x"}}}}).must(t, 201)
	wf := create("/api/workflows", map[string]any{"workspace_id": ws, "name": "walk_secret_flow", "definition": json.RawMessage(echoWorkflow)})
	plugin := create("/api/plugins", map[string]any{"workspace_id": ws, "openapi": weatherDoc})
	kb := create("/api/knowledge", map[string]any{"workspace_id": ws, "name": "walk secret kb", "format_type": 0})
	app := create("/api/apps", map[string]any{"workspace_id": ws, "name": "walk secret app"})
	ch := create("/api/bots/"+bot+"/channels", map[string]any{"kind": "webhook", "settings": map[string]any{"secret": "walk-secret-0123456789"}})
	ids := map[string]string{
		"workspace_id": ws, "workspaces": ws, "other": other, "bots": bot, "bot_id": bot, "model": bot,
		"tables": table, "row_id": firstRowID(t, rows.data), "workflows": wf, "workflow_id": wf,
		"plugins": plugin, "knowledge": kb, "dataset_id": kb, "apps": app, "channel_id": ch, "channels": ch,
	}
	return walkFixture{ids: ids, markers: []string{"walk secret", "walk_secret", `"` + ws + `"`, `"` + bot + `"`, `"` + wf + `"`}}
}

func firstRowID(t *testing.T, data map[string]any) string {
	t.Helper()
	if ids, ok := data["ids"].([]any); ok && len(ids) > 0 {
		if id, ok := ids[0].(string); ok {
			return id
		}
	}
	for _, k := range []string{"items", "rows"} {
		if list, ok := data[k].([]any); ok && len(list) > 0 {
			if m, ok := list[0].(map[string]any); ok {
				return str(m, "id")
			}
		}
	}
	if id := str(data, "id"); id != "" {
		return id
	}
	t.Fatalf("no row id in %v", data)
	return ""
}
