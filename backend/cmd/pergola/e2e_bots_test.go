package main

import (
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestBotsE2E drives bots and their variables through the Coze-compatible
// and the console routes, on every back end. No model is ever called.
func TestBotsE2E(t *testing.T) {
	for _, b := range backends() {
		t.Run(b.name, func(t *testing.T) {
			s := startServer(t, b.env(t))
			for _, m := range []string{`{"id":"fake","name":"Fake model","capabilities":{"tools":true},`, `{"id":"plain",`} {
				s.call(t, "POST", "/api/admin/models", bootstrapToken, m+`"provider":"openai","base_url":"http://127.0.0.1:1/v1","api_key":"x","model":"fake"}`).must(t, 201)
			}
			ws := str(s.call(t, "POST", "/api/workspaces", bootstrapToken, map[string]any{"name": "Bots"}).must(t, 201).data, "id")
			t.Run("coze lifecycle", func(t *testing.T) { botsCozeLifecycle(t, s, ws) })
			t.Run("console round trip", func(t *testing.T) { botsConsoleRoundTrip(t, s, ws) })
			t.Run("bad input names the field", func(t *testing.T) { botsBadInput(t, s, ws) })
			t.Run("variables", func(t *testing.T) { botsVariables(t, s, ws) })
			t.Run("isolation and delete", func(t *testing.T) { botsIsolationAndDelete(t, s, ws) })
		})
	}
}

// cozeBot creates a bot through /v1/bot/create and returns its id.
func cozeBot(t *testing.T, s *testServer, ws string, body map[string]any) string {
	t.Helper()
	body["space_id"] = ws
	return str(s.call(t, "POST", "/v1/bot/create", bootstrapToken, body).must(t, 200).data, "bot_id")
}

func botsCozeLifecycle(t *testing.T, s *testServer, ws string) {
	tok := bootstrapToken
	id := cozeBot(t, s, ws, map[string]any{"name": "Helper", "description": "helps", "icon_file_id": "ignored",
		"prompt_info": map[string]any{"prompt": "v1 prompt"}, "onboarding_info": map[string]any{"prologue": "Hi", "suggested_questions": []string{"Why?"}},
		"model_info_config":  map[string]any{"model_id": "fake", "temperature": 0.3, "context_round": 7, "response_format": "markdown"},
		"suggest_reply_info": map[string]any{"reply_mode": "customized", "customized_prompt": "short"}})
	s.call(t, "GET", "/v1/bot/get_online_info?bot_id="+id, tok, nil).fails(t, 404, 4200, "bot "+id+" is not published; publish it first")
	// As coze-go sends it: empty name and description keep the stored ones.
	s.call(t, "POST", "/v1/bot/update", tok, map[string]any{"bot_id": id, "name": "", "description": "", "prompt_info": map[string]any{"prompt": "v2 prompt"}}).must(t, 200)
	v1 := s.call(t, "POST", "/v1/bot/publish", tok, map[string]any{"bot_id": id, "connector_ids": []string{"1024"}}).must(t, 200).data
	v2 := s.call(t, "POST", "/v1/bot/publish", tok, map[string]any{"bot_id": id}).must(t, 200).data
	if str(v1, "version") != "1" || str(v2, "version") != "2" || str(v2, "bot_id") != id {
		t.Fatalf("publish answers %v then %v, want versions \"1\" and \"2\"", v1, v2)
	}
	s.call(t, "POST", "/v1/bot/update", tok, map[string]any{"bot_id": id, "name": "Draft name", "prompt_info": map[string]any{"prompt": "draft prompt"}}).must(t, 200)
	online := s.call(t, "GET", "/v1/bot/get_online_info?bot_id="+id, tok, nil).must(t, 200).data
	model, _ := online["model_info"].(map[string]any)
	params, _ := model["parameters"].(map[string]any)
	if str(online, "version") != "2" || str(online, "name") != "Helper" || str(online, "description") != "helps" ||
		str(online["prompt_info"].(map[string]any), "prompt") != "v2 prompt" || str(online, "icon_url") != "" ||
		str(model, "model_name") != "Fake model" || params["context_round"] != float64(7) || params["response_format"] != "text" ||
		online["bot_mode"] != float64(0) || len(items(t, online, "plugin_info_list")) != 0 || str(online, "owner_user_id") == "" ||
		str(online["suggest_reply_info"].(map[string]any), "reply_mode") != "customized" {
		t.Fatalf("get_online_info = %v, want version 2 as published", online)
	}
	if again := s.call(t, "GET", "/v1/bots/"+id, tok, nil).must(t, 200).data; !cmp.Equal(again, online) {
		t.Errorf("/v1/bots/%s differs from get_online_info:\n%v\n%v", id, again, online)
	}
	draft := s.call(t, "GET", "/v1/bots/"+id+"?is_published=false", tok, nil).must(t, 200).data
	if str(draft, "version") != "0" || str(draft, "name") != "Draft name" || str(draft["prompt_info"].(map[string]any), "prompt") != "draft prompt" {
		t.Fatalf("draft = %v", draft)
	}
	unpublished := cozeBot(t, s, ws, map[string]any{"name": "Unpublished"})
	listed := s.call(t, "GET", "/v1/space/published_bots_list?space_id="+ws+"&page_index=1&page_size=10", tok, nil).must(t, 200).data
	if bots := items(t, listed, "space_bots"); !hasBot(bots, "bot_id", id) || hasBot(bots, "bot_id", unpublished) || bots[0]["publish_time"] == "" {
		t.Errorf("published_bots_list = %v, want %s and not %s", listed, id, unpublished)
	}
	for status, want := range map[string][]string{"": {id}, "all": {unpublished, id}, "unpublished_draft": {unpublished}, "published_draft": {id}} {
		got := s.call(t, "GET", "/v1/bots?workspace_id="+ws+"&publish_status="+status, tok, nil).must(t, 200).data
		list := items(t, got, "items")
		if got["total"] != float64(len(want)) || len(list) != len(want) {
			t.Fatalf("/v1/bots publish_status=%q = %v, want %v", status, got, want)
		}
		for i, w := range want {
			if str(list[i], "id") != w || (w == id) != (list[i]["is_published"] == true) {
				t.Errorf("/v1/bots publish_status=%q item %d = %v, want bot %s", status, i, list[i], w)
			}
		}
	}
}

func hasBot(list []map[string]any, key, id string) bool {
	return slices.ContainsFunc(list, func(b map[string]any) bool { return str(b, key) == id })
}

// fullBotConfig sets every field of a console configuration, as GET
// answers it.
func fullBotConfig() map[string]any {
	return map[string]any{
		"name": "Full", "description": "Every field", "icon_url": "https://example.com/icon.png", "prompt": "Hello {{city}}.",
		"model":   map[string]any{"model_id": "fake", "temperature": 0.5, "top_p": 0.9, "max_tokens": float64(256), "response_format": "json"},
		"plugins": []any{}, "workflows": []any{}, "tables": []any{}, "sub_agents": []any{}, "handoffs": []any{},
		"variables": []any{map[string]any{"keyword": "city", "default": "Paris", "description": "where", "show_in_prompt": true}},
		"client_tools": []any{map[string]any{"name": "weather", "description": "forecast", "parameters": map[string]any{
			"type": "object", "properties": map[string]any{"city": map[string]any{"type": "string"}}}}},
		"onboarding":     map[string]any{"prologue": "Hi", "suggested_questions": []any{"Weather?"}},
		"suggest_reply":  map[string]any{"enabled": true, "prompt": "short"},
		"history_rounds": float64(8), "max_tool_rounds": float64(4),
		"knowledge": map[string]any{"dataset_ids": []any{}, "auto_call": false, "search_strategy": float64(0), "top_k": float64(5),
			"min_score": float64(0), "show_source": false, "no_recall_reply": "", "rerank_model": "", "use_rewrite": false},
	}
}

func botsConsoleRoundTrip(t *testing.T, s *testServer, ws string) {
	tok := bootstrapToken
	body := fullBotConfig()
	body["workspace_id"] = ws
	id := str(s.call(t, "POST", "/api/bots", tok, body).must(t, 201).data, "id")
	got := s.call(t, "GET", "/api/bots/"+id, tok, nil).must(t, 200).data
	if diff := cmp.Diff(fullBotConfig(), got["config"]); diff != "" {
		t.Fatalf("config after POST then GET (-sent +got):\n%s", diff)
	}
	if str(got, "workspace_id") != ws || got["draft_revision"] != float64(1) || got["published_version"] != float64(0) || str(got, "creator_id") == "" {
		t.Errorf("bot = %v", got)
	}
	put := s.call(t, "PUT", "/api/bots/"+id, tok, fullBotConfig()).must(t, 200).data
	if diff := cmp.Diff(fullBotConfig(), put["config"]); diff != "" || put["draft_revision"] != float64(2) {
		t.Errorf("config after PUT (-sent +got):\n%s", diff)
	}
	v := s.call(t, "POST", "/api/bots/"+id+"/publish", tok, map[string]any{"connector_ids": []string{"1024", "999"}}).must(t, 201).data
	if v["version"] != float64(1) || !cmp.Equal(v["connector_ids"], []any{"1024", "999"}) || v["config"] == nil {
		t.Fatalf("publish = %v", v)
	}
	// A PUT replaces the whole draft: absent fields take their defaults.
	minimal := s.call(t, "PUT", "/api/bots/"+id, tok, map[string]any{"name": "Minimal"}).must(t, 200).data["config"].(map[string]any)
	if minimal["prompt"] != "" || len(minimal["variables"].([]any)) != 0 || minimal["history_rounds"] != float64(5) ||
		minimal["model"].(map[string]any)["model_id"] != "fake" {
		t.Errorf("config after a minimal PUT = %v", minimal)
	}
	versions := s.call(t, "GET", "/api/bots/"+id+"/versions", tok, nil).must(t, 200).data
	if list := items(t, versions, "items"); len(list) != 1 || list[0]["config"] != nil {
		t.Errorf("versions = %v", versions)
	}
	old := s.call(t, "GET", "/api/bots/"+id+"/versions/1", tok, nil).must(t, 200).data
	if diff := cmp.Diff(fullBotConfig(), old["config"]); diff != "" {
		t.Errorf("version 1 changed with the draft (-published +now):\n%s", diff)
	}
	s.call(t, "GET", "/api/bots/"+id+"/versions/2", tok, nil).fails(t, 404, 4200, "version 2 of bot "+id+" not found")
	list := s.call(t, "GET", "/api/bots?workspace_id="+ws+"&status=published", tok, nil).must(t, 200).data
	if !hasBot(items(t, list, "items"), "id", id) {
		t.Errorf("console list = %v, want %s", list, id)
	}
}

func botsBadInput(t *testing.T, s *testServer, ws string) {
	tok := bootstrapToken
	id := cozeBot(t, s, ws, map[string]any{"name": "Target"})
	long := strings.Repeat("n", 101)
	withTool := func(params any) map[string]any {
		return map[string]any{"workspace_id": ws, "name": "x", "client_tools": []any{map[string]any{"name": "t", "parameters": params}}}
	}
	cases := []struct {
		method, path string
		body         any
		field        string
	}{
		{"POST", "/api/bots", `{"workspace_id":`, "JSON"},
		{"POST", "/api/bots", map[string]any{"workspace_id": ws, "name": 5}, "name"},
		{"POST", "/api/bots", map[string]any{"workspace_id": "abc", "name": "x"}, "workspace_id"},
		{"POST", "/api/bots", map[string]any{"workspace_id": ws, "name": long}, "name: must be at most 100"},
		{"POST", "/api/bots", map[string]any{"workspace_id": ws, "name": "x", "model": map[string]any{"model_id": "nope"}}, "model.model_id"},
		{"POST", "/api/bots", map[string]any{"workspace_id": ws, "name": "x", "model": map[string]any{"temperature": "hot"}}, "model.temperature"},
		{"POST", "/api/bots", map[string]any{"workspace_id": ws, "name": "x", "promt": "typo"}, "promt: is not a known field"},
		{"POST", "/api/bots", map[string]any{"workspace_id": ws, "name": "x", "variables": []any{map[string]any{"keyword": "k"}, map[string]any{"keyword": "k"}}}, "variables[1].keyword"},
		{"POST", "/api/bots", withTool(map[string]any{"type": "array"}), "client_tools[0].parameters"},
		{"POST", "/api/bots", withTool("schema"), "client_tools.parameters"},
		{"POST", "/api/bots", map[string]any{"workspace_id": ws, "name": "x", "plugins": []any{map[string]any{"plugin_id": "1", "tool": "t"}}}, "plugins[0].plugin_id: plugin 1 does not exist"},
		{"POST", "/api/bots", map[string]any{"workspace_id": ws, "name": "x", "model": map[string]any{"model_id": "plain"},
			"variables": []any{map[string]any{"keyword": "k"}}}, `model.model_id: model "plain" does not support tools`},
		{"PUT", "/api/bots/" + id, map[string]any{"name": "x", "history_rounds": 99}, "history_rounds"},
		{"POST", "/api/bots/" + id + "/publish", map[string]any{"connector_ids": []string{"482431"}}, "connector_ids"},
		{"GET", "/api/bots?workspace_id=" + ws + "&status=maybe", nil, "status"},
		{"POST", "/v1/bot/create", map[string]any{"name": "x"}, "space_id: is required"},
		{"POST", "/v1/bot/create", map[string]any{"space_id": ws, "name": "x", "model_info_config": map[string]any{"model_id": "nope"}}, "model.model_id"},
		{"POST", "/v1/bot/update", map[string]any{"bot_id": id, "suggest_reply_info": map[string]any{"reply_mode": "loud"}}, "suggest_reply_info.reply_mode"},
		{"POST", "/v1/bot/update", map[string]any{"bot_id": id, "workflow_id_list": map[string]any{"ids": []any{map[string]any{"id": "7"}}}}, "workflows[0].workflow_id: workflow 7 does not exist"},
		{"POST", "/v1/bot/publish", map[string]any{"bot_id": id, "connector_ids": []string{"1"}}, "connector_ids"},
		{"GET", "/v1/bot/get_online_info?bot_id=invalid_bot_id", nil, "bot_id"},
		{"GET", "/v1/bots/" + id + "?is_published=maybe", nil, "is_published"},
		{"GET", "/v1/bots?workspace_id=" + ws + "&publish_status=gone", nil, "publish_status"},
	}
	for i, c := range cases {
		t.Run(fmt.Sprintf("%d %s %s", i, c.method, c.path), func(t *testing.T) {
			s.call(t, c.method, c.path, tok, c.body).fails(t, 400, 4000, c.field)
		})
	}
	if got := s.call(t, "GET", "/api/bots/"+id, tok, nil).must(t, 200).data; got["draft_revision"] != float64(1) || got["published_version"] != float64(0) {
		t.Errorf("refused writes changed the bot: %v", got)
	}
}

// variableValues returns "value stored=bool" by keyword from a variables
// answer of either surface (create_time or created_at, 0 for a default).
func variableValues(t *testing.T, data map[string]any) map[string]string {
	t.Helper()
	out := map[string]string{}
	for _, it := range items(t, data, "items") {
		stored := it["create_time"] != float64(0) && it["created_at"] != float64(0) && it["update_time"] != float64(0) && it["updated_at"] != float64(0)
		out[str(it, "keyword")] = fmt.Sprintf("%s stored=%v", str(it, "value"), stored)
	}
	return out
}

func botsVariables(t *testing.T, s *testServer, ws string) {
	tok := bootstrapToken
	get := func(path string) map[string]string {
		return variableValues(t, s.call(t, "GET", path, tok, nil).must(t, 200).data)
	}
	id := cozeBot(t, s, ws, map[string]any{"name": "Memory", "model_info_config": map[string]any{"model_id": "fake"}})
	cfg := map[string]any{"name": "Memory", "variables": []any{map[string]any{"keyword": "city", "default": "Paris"}, map[string]any{"keyword": "mood"}}}
	s.call(t, "PUT", "/api/bots/"+id, tok, cfg).must(t, 200)
	coze := "/v1/variables?bot_id=" + id + "&connector_uid=end-user-1"
	s.call(t, "PUT", "/v1/variables", tok, map[string]any{"bot_id": id, "connector_uid": "end-user-1", "data": []any{map[string]any{"keyword": "city", "value": "Oslo"}}}).must(t, 200)
	got := get(coze)
	if want := map[string]string{"city": "Oslo stored=true", "mood": " stored=false"}; !cmp.Equal(got, want) {
		t.Errorf("GET /v1/variables = %v, want %v", got, want)
	}
	if got := get(coze + "&keywords=mood,unknown"); len(got) != 1 {
		t.Errorf("keywords=mood gives %v", got)
	}
	if got := get(coze + "&connector_id=999"); got["city"] != "Paris stored=false" {
		t.Errorf("the chat SDK connector sees %v", got)
	}
	s.call(t, "PUT", "/v1/variables", tok, map[string]any{"bot_id": id, "connector_uid": "end-user-1",
		"data": []any{map[string]any{"keyword": "city", "value": "Rome"}, map[string]any{"keyword": "age", "value": "3"}}}).fails(t, 400, 4000, "data[1].keyword")
	s.call(t, "PUT", "/api/bots/"+id+"/variables", tok, map[string]any{"user_id": "end-user-1",
		"data": []any{map[string]any{"keyword": "age", "value": "3"}}}).fails(t, 400, 4000, "data[0].keyword")
	s.call(t, "GET", "/api/bots/"+id+"/variables", tok, nil).fails(t, 400, 4000, "user_id")
	console := "/api/bots/" + id + "/variables?user_id=end-user-1"
	if got := get(console); got["city"] != "Oslo stored=true" {
		t.Errorf("refused writes changed city: %v", got)
	}
	set := s.call(t, "PUT", "/api/bots/"+id+"/variables", tok, map[string]any{"user_id": "end-user-1",
		"data": []any{map[string]any{"keyword": "mood", "value": "happy"}}}).must(t, 200).data
	if got := variableValues(t, set); got["mood"] != "happy stored=true" || got["city"] != "Oslo stored=true" {
		t.Errorf("console PUT answers %v", got)
	}
	s.call(t, "DELETE", console+"&keywords=mood", tok, nil).must(t, 200)
	if got := get(console); got["mood"] != " stored=false" || got["city"] != "Oslo stored=true" {
		t.Errorf("after resetting mood: %v", got)
	}
	s.call(t, "DELETE", console, tok, nil).must(t, 200)
	if got := get(coze); got["city"] != "Paris stored=false" {
		t.Errorf("after reset: %v", got)
	}
}

func botsIsolationAndDelete(t *testing.T, s *testServer, ws string) {
	tok := bootstrapToken
	id := cozeBot(t, s, ws, map[string]any{"name": "Private", "model_info_config": map[string]any{"model_id": "fake"}})
	s.call(t, "PUT", "/api/bots/"+id, tok, map[string]any{"name": "Private", "variables": []any{map[string]any{"keyword": "k", "default": "d"}}}).must(t, 200)
	s.call(t, "POST", "/v1/bot/publish", tok, map[string]any{"bot_id": id}).must(t, 200)
	bob := convUserToken(t, s, "bob.bots.e2e@example.com")
	// The admin's own token, restricted to their personal workspace.
	all := items(t, s.call(t, "GET", "/api/workspaces", tok, nil).must(t, 200).data, "items")
	personal := str(all[slices.IndexFunc(all, func(w map[string]any) bool { return str(w, "kind") == "personal" })], "id")
	restricted := str(s.call(t, "POST", "/api/tokens", tok, map[string]any{"name": "personal only", "workspace_ids": []string{personal}}).must(t, 201).data, "token")
	kv := []any{map[string]any{"keyword": "k", "value": "x"}}
	botCalls := map[string]any{ // "METHOD path": body
		"GET /v1/bot/get_online_info?bot_id=" + id: nil, "GET /v1/bots/" + id + "?is_published=false": nil,
		"POST /v1/bot/update": map[string]any{"bot_id": id, "name": "stolen"}, "POST /v1/bot/publish": map[string]any{"bot_id": id},
		"GET /v1/variables?bot_id=" + id + "&connector_uid=u": nil,
		"PUT /v1/variables":   map[string]any{"bot_id": id, "connector_uid": "u", "data": kv},
		"GET /api/bots/" + id: nil, "PUT /api/bots/" + id: map[string]any{"name": "stolen"}, "DELETE /api/bots/" + id: nil,
		"POST /api/bots/" + id + "/publish": nil, "GET /api/bots/" + id + "/versions": nil, "GET /api/bots/" + id + "/versions/1": nil,
		"GET /api/bots/" + id + "/variables?user_id=u": nil, "DELETE /api/bots/" + id + "/variables?user_id=u": nil,
		"PUT /api/bots/" + id + "/variables": map[string]any{"user_id": "u", "data": kv},
	}
	for _, other := range []string{bob, restricted} {
		for call, body := range botCalls {
			method, path, _ := strings.Cut(call, " ")
			s.call(t, method, path, other, body).fails(t, 404, 4200, "bot "+id+" not found")
		}
		s.call(t, "GET", "/v1/space/published_bots_list?space_id="+ws, other, nil).fails(t, 403, 4101, "workspace")
		s.call(t, "GET", "/api/bots?workspace_id="+ws, other, nil).fails(t, 403, 4101, "workspace")
		s.call(t, "POST", "/v1/bot/create", other, map[string]any{"space_id": ws, "name": "intruder"}).fails(t, 403, 4101, "workspace")
	}
	got := s.call(t, "GET", "/api/bots/"+id, tok, nil).must(t, 200).data
	if str(got["config"].(map[string]any), "name") != "Private" || got["draft_revision"] != float64(2) || got["published_version"] != float64(1) {
		t.Fatalf("bot changed: %v", got)
	}
	if vals := variableValues(t, s.call(t, "GET", "/v1/variables?bot_id="+id+"&connector_uid=u", tok, nil).must(t, 200).data); vals["k"] != "d stored=false" {
		t.Fatalf("variables changed: %v", vals)
	}
	// A member who did not create the bot may read it but not delete it.
	s.call(t, "POST", "/api/workspaces/"+ws+"/members", tok, map[string]any{"email": "bob.bots.e2e@example.com"}).must(t, 201)
	s.call(t, "GET", "/v1/bot/get_online_info?bot_id="+id, bob, nil).must(t, 200)
	s.call(t, "DELETE", "/api/bots/"+id, bob, nil).fails(t, 403, 4101, "creator or an admin")
	s.call(t, "DELETE", "/api/bots/"+id, tok, nil).must(t, 200)
	s.call(t, "GET", "/api/bots/"+id, tok, nil).fails(t, 404, 4200, "bot "+id+" not found")
	s.call(t, "GET", "/v1/bot/get_online_info?bot_id="+id, tok, nil).fails(t, 404, 4200, "not found")
}
