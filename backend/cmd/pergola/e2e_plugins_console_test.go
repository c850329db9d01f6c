package main

import (
	"encoding/json"
	"strings"
	"testing"

	"gopkg.in/yaml.v3"
)

// TestPluginsConsoleAndAdmin drives the plugin routes: registration (YAML
// text or a JSON object), the bad-input list with the field at fault,
// secrets never returned, update, debug runs with the key masked,
// versions, delete, isolation, binding rules, and the administrators'
// switches refused at bind and at call time.
func TestPluginsConsoleAndAdmin(t *testing.T) {
	api := newWeatherAPI(t)
	c := newChatSetup(t, withEnv(backends()[0], map[string]string{"PERGOLA_EGRESS_ALLOW": "127.0.0.1"}))
	s, ws := c.s, c.ws
	auth := map[string]any{"type": "api_key", "name": "X-Api-Key", "key": weatherKey}
	created := s.call(t, "POST", "/api/plugins", bootstrapToken, map[string]any{
		"workspace_id": ws, "openapi": weatherDoc, "server_url": api.URL + "/v1", "auth": auth}).must(t, 201)
	id := str(created.data, "id")
	noSecret(t, created)

	t.Run("a JSON object document", func(t *testing.T) {
		var doc map[string]any
		if err := yaml.Unmarshal([]byte(weatherDoc), &doc); err != nil {
			t.Fatal(err)
		}
		r := s.call(t, "POST", "/api/plugins", bootstrapToken, map[string]any{"workspace_id": ws, "name": "Weather JSON", "openapi": doc, "server_url": api.URL + "/v1"}).must(t, 201)
		if len(items(t, r.data, "tools")) != 2 {
			t.Fatalf("created = %v", r.data)
		}
	})
	t.Run("bad input", func(t *testing.T) { pluginsBadInput(t, s, ws, api.URL) })
	t.Run("get, update, debug", func(t *testing.T) { pluginsGetUpdateDebug(t, s, id) })
	t.Run("versions and binding", func(t *testing.T) { pluginsVersionsAndBinding(t, c, id) })
	t.Run("admin switches", func(t *testing.T) { pluginsAdmin(t, c, id) })
	t.Run("isolation and delete", func(t *testing.T) { pluginsIsolation(t, s, ws, id) })
}

// noSecret fails when an answer carries a secret.
func noSecret(t *testing.T, r reply) {
	t.Helper()
	b, _ := json.Marshal(r.raw)
	for _, secret := range []string{weatherKey, "client-secret-9", "pw-secret-7"} {
		if strings.Contains(string(b), secret) {
			t.Fatalf("an answer returns a secret: %s", b)
		}
	}
}

func pluginsBadInput(t *testing.T, s *testServer, ws, apiURL string) {
	post := func(body map[string]any) reply {
		t.Helper()
		if _, ok := body["workspace_id"]; !ok {
			body["workspace_id"] = ws
		}
		return s.call(t, "POST", "/api/plugins", bootstrapToken, body)
	}
	post(map[string]any{"workspace_id": nil, "openapi": weatherDoc}).fails(t, 400, 4000, "workspace_id: is required")
	post(map[string]any{"openapi": ""}).fails(t, 400, 4000, "openapi: is required")
	post(map[string]any{"openapi": 5}).fails(t, 400, 4000, "openapi: must be a string")
	post(map[string]any{"openapi": "paths: ["}).fails(t, 400, 4000, "openapi: is neither valid JSON nor valid YAML")
	post(map[string]any{"openapi": `{"swagger":"2.0","paths":{}}`}).fails(t, 400, 4000, "openapi: Swagger 2.0 documents are not supported")
	post(map[string]any{"openapi": "openapi: 3.0.3\nx: " + strings.Repeat("a", 1<<20)}).fails(t, 400, 4000, "the limit is 1048576 bytes (1 MiB)")
	broken := strings.Replace(weatherDoc, "$ref: \"#/components/schemas/Alert\"", "$ref: \"#/components/schemas/Missing\"", 1)
	post(map[string]any{"openapi": broken}).fails(t, 400, 4000, `openapi: POST /alerts (addAlert): requestBody application/json schema: $ref "#/components/schemas/Missing": "Missing" does not exist`)
	post(map[string]any{"openapi": weatherDoc, "auth": map[string]any{"type": "hmac"}}).fails(t, 400, 4000, `auth.type: unsupported auth type "hmac"`)
	post(map[string]any{"openapi": weatherDoc, "auth": map[string]any{"type": "oauth2_client_credentials", "token_url": "x"}}).fails(t, 400, 4000, "auth.token_url")
	post(map[string]any{"openapi": weatherDoc, "oauth": true}).fails(t, 400, 4000, "oauth: is not a known field")
	post(map[string]any{"openapi": weatherDoc, "server_url": apiURL + "/v1"}).fails(t, 409, 4300, `a plugin named "Weather" already exists`)
	post(map[string]any{"openapi": weatherDoc, "kind": "mcp", "name": "M", "server_url": "http://127.0.0.1:1/mcp"}).fails(t, 400, 4000, "server_url: cannot connect to the MCP server")
	s.call(t, "GET", "/api/plugins?workspace_id="+ws+"&scope=mine", bootstrapToken, nil).fails(t, 400, 4000, "scope: must be all, workspace or catalog")
}

func pluginsGetUpdateDebug(t *testing.T, s *testServer, id string) {
	got := s.call(t, "GET", "/api/plugins/"+id, bootstrapToken, nil).must(t, 200)
	noSecret(t, got)
	tools := items(t, got.data, "tools")
	params, _ := tools[0]["parameters"].(map[string]any)
	if str(got.data, "openapi") != weatherDoc || params == nil || got.data["auth"].(map[string]any)["has_secret"] != true {
		t.Fatalf("plugin = %v", got.data)
	}
	// The key is kept when the auth changes without it.
	patched := s.call(t, "PATCH", "/api/plugins/"+id, bootstrapToken, map[string]any{"description": "Now with alerts",
		"auth": map[string]any{"type": "api_key", "location": "header", "name": "X-Api-Key"}}).must(t, 200)
	noSecret(t, patched)
	if str(patched.data, "description") != "Now with alerts" || patched.data["draft_revision"] != float64(2) {
		t.Fatalf("patched = %v", patched.data)
	}
	s.call(t, "PATCH", "/api/plugins/"+id, bootstrapToken, map[string]any{"openapi": "openapi: 3.0.3"}).fails(t, 400, 4000, "openapi: the document has no operations")

	run := s.call(t, "POST", "/api/plugins/"+id+"/tools/getWeather/debug", bootstrapToken, map[string]any{"args": map[string]any{"city": "Oslo"}}).must(t, 200)
	noSecret(t, run)
	req, resp := run.data["request"].(map[string]any), run.data["response"].(map[string]any)
	if run.data["ok"] != true || str(req, "url") != s.pluginAPIURL(t, id)+"/weather/Oslo" || req["headers"].(map[string]any)["X-Api-Key"] != "****" ||
		resp["status"] != float64(200) || !strings.Contains(str(run.data, "result"), `"city":"Oslo"`) || run.data["duration_ms"].(float64) <= 0 {
		t.Fatalf("debug run = %v", run.data)
	}
	s.call(t, "POST", "/api/plugins/"+id+"/tools/nope/debug", bootstrapToken, nil).fails(t, 404, 4200, `has no tool "nope"; its tools are addAlert, getWeather`)
	s.call(t, "POST", "/api/plugins/"+id+"/tools/addAlert/debug", bootstrapToken, map[string]any{"args": `{"city":3}`}).
		fails(t, 400, 4000, `invalid arguments: missing required "above"; "city" must be a string, got 3`)
	s.call(t, "POST", "/api/plugins/"+id+"/tools/getWeather/debug", bootstrapToken, map[string]any{"args": map[string]any{"city": "x"}, "version": "9"}).
		fails(t, 404, 4200, "version 9 of plugin")
}

// pluginAPIURL is the server URL of a plugin's first tool.
func (s *testServer) pluginAPIURL(t *testing.T, id string) string {
	t.Helper()
	p := s.call(t, "GET", "/api/plugins/"+id, bootstrapToken, nil).must(t, 200).data
	return str(items(t, p, "tools")[0], "server_url")
}

func pluginsVersionsAndBinding(t *testing.T, c *chatSetup, id string) {
	s := c.s
	bot := map[string]any{"workspace_id": c.ws, "name": "Binder", "model": map[string]any{"model_id": "fake"},
		"plugins": []map[string]any{{"plugin_id": id, "tool": "getWeather"}}}
	botID := str(s.call(t, "POST", "/api/bots", bootstrapToken, bot).must(t, 201).data, "id")
	s.call(t, "POST", "/api/bots/"+botID+"/publish", bootstrapToken, nil).fails(t, 400, 4000, "plugins[0].plugin_id: plugin "+id+" (Weather) is not published; publish it first")
	v := s.call(t, "POST", "/api/plugins/"+id+"/publish", bootstrapToken, nil).must(t, 201).data
	if str(v, "version") != "1" || len(items(t, v, "tools")) != 2 {
		t.Fatalf("version = %v", v)
	}
	s.call(t, "POST", "/api/bots/"+botID+"/publish", bootstrapToken, nil).must(t, 201)
	vs := s.call(t, "GET", "/api/plugins/"+id+"/versions", bootstrapToken, nil).must(t, 200).data
	one := s.call(t, "GET", "/api/plugins/"+id+"/versions/1", bootstrapToken, nil).must(t, 200).data
	if vs["total"] != float64(1) || str(one, "openapi") != weatherDoc {
		t.Fatalf("versions = %v, version 1 = %v", vs, one)
	}
	bot["plugins"] = []map[string]any{{"plugin_id": id, "tool": "getForecast"}}
	s.call(t, "POST", "/api/bots", bootstrapToken, bot).fails(t, 400, 4000, `plugins[0].tool: plugin `+id+` (Weather) has no tool "getForecast" in its draft; its tools are addAlert, getWeather`)
	bot["plugins"] = []map[string]any{{"plugin_id": "12345", "tool": "x"}}
	s.call(t, "POST", "/api/bots", bootstrapToken, bot).fails(t, 400, 4000, "plugins[0].plugin_id: plugin 12345 does not exist")
}

func pluginsAdmin(t *testing.T, c *chatSetup, id string) {
	s := c.s
	s.call(t, "PATCH", "/api/admin/plugins/"+id+"/tools/getWeather", bootstrapToken, map[string]any{"enabled": false}).must(t, 200)
	bot := map[string]any{"workspace_id": c.ws, "name": "Governed", "model": map[string]any{"model_id": "fake"},
		"plugins": []map[string]any{{"plugin_id": id, "tool": "getWeather"}}}
	s.call(t, "POST", "/api/bots", bootstrapToken, bot).fails(t, 400, 4000, "plugins[0].tool: tool getWeather of plugin "+id+" (Weather) is disabled by an administrator")
	s.call(t, "POST", "/api/plugins/"+id+"/tools/getWeather/debug", bootstrapToken, map[string]any{"args": map[string]any{"city": "x"}}).fails(t, 403, 4101, "disabled by an administrator")
	s.call(t, "PATCH", "/api/admin/plugins/"+id+"/tools/getWeather", bootstrapToken, map[string]any{"enabled": true}).must(t, 200)
	botID := c.bot(t, bot)
	off := s.call(t, "PATCH", "/api/admin/plugins/"+id, bootstrapToken, map[string]any{"enabled": false}).must(t, 200).data
	if off["enabled"] != false {
		t.Fatalf("admin answer = %v", off)
	}
	events := s.stream(t, "/v3/chat", bootstrapToken, map[string]any{"bot_id": botID, "user_id": "u1", "stream": true,
		"additional_messages": userMessage(`#call getWeather {"city":"Rome"}`)})
	if got := answerOf(t, events); got != "tool said: error: plugin "+id+" (Weather) is disabled by an administrator" {
		t.Fatalf("answer = %q", got)
	}
	s.call(t, "PATCH", "/api/admin/plugins/"+id, bootstrapToken, map[string]any{"enabled": true}).must(t, 200)
	s.call(t, "PATCH", "/api/admin/plugins/"+id, bootstrapToken, map[string]any{}).fails(t, 400, 4000, "enabled: is required")
	s.call(t, "PATCH", "/api/admin/plugins/"+id+"/tools/nope", bootstrapToken, map[string]any{"enabled": false}).fails(t, 404, 4200, `has no tool "nope"`)
	all := s.call(t, "GET", "/api/admin/plugins?page_size=100", bootstrapToken, nil).must(t, 200).data
	kinds := map[string]int{}
	for _, p := range items(t, all, "items") {
		kinds[str(p, "kind")]++
	}
	if kinds["builtin"] < 5 || kinds["openapi"] < 2 {
		t.Fatalf("admin list kinds = %v", kinds)
	}
}

func pluginsIsolation(t *testing.T, s *testServer, ws, id string) {
	s.call(t, "POST", "/api/admin/users", bootstrapToken, map[string]any{"email": "eve@example.com", "name": "Eve", "password": "eve-password-1"}).must(t, 201)
	login := s.call(t, "POST", "/api/auth/login", "", map[string]any{"email": "eve@example.com", "password": "eve-password-1"}).must(t, 200)
	eve := str(login.data, "token")
	s.call(t, "GET", "/api/plugins/"+id, eve, nil).fails(t, 404, 4200, "plugin "+id+" not found")
	s.call(t, "DELETE", "/api/plugins/"+id, eve, nil).fails(t, 404, 4200, "not found")
	s.call(t, "GET", "/api/plugins?workspace_id="+ws, eve, nil).fails(t, 403, 4101, "not a member")
	s.call(t, "GET", "/api/admin/plugins", eve, nil).fails(t, 403, 4101, "administrator")
	s.call(t, "DELETE", "/api/plugins/"+id, bootstrapToken, nil).fails(t, 409, 4300, "is used by the published bots")
	s.call(t, "DELETE", "/api/plugins/"+id+"?force=true", bootstrapToken, nil).must(t, 200)
	s.call(t, "GET", "/api/plugins/"+id, bootstrapToken, nil).fails(t, 404, 4200, "not found")
}
