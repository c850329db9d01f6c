package main

import (
	"encoding/json"
	"strings"
	"testing"
)

// visitNodes add one to the app variable visits (next.n is the count).
const visitNodes = `
  {"id": "next", "type": "code", "config": {"code": "function main({ params }) { return { n: params.v + 1 }; }"},
   "inputs": {"v": {"variable": "app.visits"}}, "outputs": [{"name": "n", "type": "integer"}]},
  {"id": "save", "type": "variable_assign", "config": {"app": ["visits"]}, "inputs": {"visits": {"ref": {"node": "next", "path": "n"}}}},`

const visitEdges = `"edges": [{"from": "start", "to": "next"}, {"from": "next", "to": "save"}, {"from": "save", "to": "end"}]}`

// countVisit counts a visit and returns the new count.
const countVisit = `{"nodes": [{"id": "start", "type": "start", "outputs": []},` + visitNodes + `
  {"id": "end", "type": "end", "inputs": {"visits": {"ref": {"node": "next", "path": "n"}}}}],` + visitEdges

// TestBotSharesAppVariables: a bot that names an app (app_id) runs its
// workflow tools with that app, so they read and assign the app's
// variables for the chat's end user, the same values a run with app_id
// for that user sees; an app of another workspace is refused naming
// app_id. On SQLite and on MariaDB with Redis.
func TestBotSharesAppVariables(t *testing.T) {
	for _, b := range backends() {
		t.Run(b.name, func(t *testing.T) {
			c := newChatSetup(t, b)
			appID := str(c.s.call(t, "POST", "/api/apps", bootstrapToken, cz{"workspace_id": c.ws, "name": "club",
				"variables": []cz{{"name": "visits", "type": "integer", "default": 0}}}).must(t, 201).data, "id")
			wf := c.workflow(t, "count_visit", "Counts a visit.", countVisit, true)
			botID := c.bot(t, map[string]any{"name": "Doorman", "model": map[string]any{"model_id": "fake"}, "app_id": appID,
				"workflows": []map[string]any{{"workflow_id": wf}}})
			got := c.s.call(t, "GET", "/api/bots/"+botID, bootstrapToken, nil).must(t, 200)
			if cfg, _ := got.data["config"].(map[string]any); str(cfg, "app_id") != appID {
				t.Fatalf("bot config = %v, want app_id %s", got.data["config"], appID)
			}
			for range 2 {
				events := c.s.stream(t, "/v3/chat", bootstrapToken, map[string]any{"bot_id": botID, "user_id": "ann", "stream": true,
					"additional_messages": userMessage(`#call count_visit {}`)})
				if done := events[len(events)-2].obj(t); str(done, "status") != "completed" {
					t.Fatalf("chat = %v", names(events))
				}
			}
			out := decodeData(t, c.s.call(t, "POST", "/v1/workflow/run", bootstrapToken,
				cz{"workflow_id": wf, "app_id": appID, "ext": cz{"user_id": "ann"}}).must(t, 200))
			if n, _ := out["visits"].(float64); n != 3 {
				t.Fatalf("after two chats the app's run counts %v, want 3", out)
			}
			values := c.s.call(t, "GET", "/api/apps/"+appID+"/values?user_id=ann", bootstrapToken, nil).must(t, 200)
			if b, _ := json.Marshal(values.data); !json.Valid(b) || !containsValue(values.data, "visits", 3) {
				t.Fatalf("ann's app values = %s, want visits 3", b)
			}

			other, otherWS := secondUser(t, c.s, "other-app-bot@x.io")
			foreign := str(c.s.call(t, "POST", "/api/apps", other, cz{"workspace_id": otherWS, "name": "theirs"}).must(t, 201).data, "id")
			c.s.call(t, "PUT", "/api/bots/"+botID, bootstrapToken, map[string]any{"name": "Doorman", "app_id": foreign,
				"model": map[string]any{"model_id": "fake"}}).fails(t, 400, 4000, "app_id: app "+foreign+" is not an app of workspace")
		})
	}
}

// containsValue reports whether a values answer holds name = want.
func containsValue(data map[string]any, name string, want float64) bool {
	list, _ := data["values"].([]any)
	for _, v := range list {
		m, _ := v.(map[string]any)
		if m["name"] == name {
			n, _ := m["value"].(float64)
			return n == want
		}
	}
	return false
}

// visitChatflow counts a visit and answers the count.
const visitChatflow = `{"nodes": [{"id": "start", "type": "start", "outputs": [{"name": "USER_INPUT", "type": "string"}]},` + visitNodes + `
  {"id": "end", "type": "end", "config": {"mode": "text", "template": "visit {{n}}"}, "inputs": {"n": {"ref": {"node": "next", "path": "n"}}}}],` +
	visitEdges

// TestChatflowWithApp: /v1/workflows/chat with app_id runs the chatflow
// with that app, its variables kept per end user across turns; another
// workspace's app is refused naming app_id.
func TestChatflowWithApp(t *testing.T) {
	for _, b := range backends() {
		t.Run(b.name, func(t *testing.T) {
			c := newChatSetup(t, b)
			appID := str(c.s.call(t, "POST", "/api/apps", bootstrapToken, cz{"workspace_id": c.ws, "name": "club",
				"variables": []cz{{"name": "visits", "type": "integer", "default": 0}}}).must(t, 201).data, "id")
			wf := c.workflow(t, "visit_flow", "Counts visits.", visitChatflow, true)
			conv := ""
			for i, want := range []string{"visit 1", "visit 2"} {
				body := cz{"workflow_id": wf, "app_id": appID, "additional_messages": userMessage("hello"), "ext": cz{"user_id": "ann"}}
				if conv != "" {
					body["conversation_id"] = conv
				}
				events := c.s.stream(t, "/v1/workflows/chat", bootstrapToken, body)
				deltas, _ := chatParts(t, events)
				done := events[len(events)-2].obj(t)
				if conv = str(done, "conversation_id"); joined(deltas) != want {
					t.Fatalf("turn %d answered %q, want %q (%v)", i, joined(deltas), want, names(events))
				}
			}
			other, otherWS := secondUser(t, c.s, "other-chatflow-app@x.io")
			foreign := str(c.s.call(t, "POST", "/api/apps", other, cz{"workspace_id": otherWS, "name": "theirs"}).must(t, 201).data, "id")
			r := c.s.call(t, "POST", "/v1/workflows/chat", bootstrapToken, cz{"workflow_id": wf, "app_id": foreign,
				"additional_messages": userMessage("hello")})
			if !strings.Contains(r.msg, "app_id") {
				t.Fatalf("another workspace's app: %d %q", r.status, r.msg)
			}
		})
	}
}
