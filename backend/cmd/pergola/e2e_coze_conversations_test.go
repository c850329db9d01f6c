package main

import (
	"strings"
	"testing"
)

// conversationCanvas is a Coze canvas that creates the conversation
// named by input name (a second create reports it existed), adds a user
// message and an assistant message, and returns the conversation's id, its
// latest message, its history and the user's conversations.
func conversationCanvas(t *testing.T) []byte {
	name := czParam("conversationName", czRef("100001", "name", "string"))
	msg := func(id, role, content string) cz {
		return czNode(id, "55", "Message "+id, cz{"inputParameters": []cz{name, czParam("role", czLit("string", role)),
			czParam("content", czRef("100001", content, "string"))}})
	}
	nodes := []cz{czStart(czOut("name", "string"), czOut("question", "string"), czOut("answer", "string")),
		czNode("200", "39", "Create", cz{"inputParameters": []cz{name}}),
		czNode("210", "39", "Create again", cz{"inputParameters": []cz{name}}),
		msg("300", "user", "question"), msg("310", "assistant", "answer"),
		czNode("400", "37", "List", cz{"inputParameters": []cz{name, czParam("limit", czLit("integer", 1))}}),
		czNode("500", "54", "History", cz{"inputParameters": []cz{name, czParam("rounds", czLit("integer", 5))}}),
		czNode("600", "53", "All", cz{"inputParameters": []cz{}}),
		czEnd(czParam("id", czRef("200", "conversationId", "string")), czParam("existed", czRef("210", "isExisted", "boolean")),
			czParam("latest", czRef("400", "messageList", "list")), czParam("history", czRef("500", "messageList", "list")),
			czParam("all", czRef("600", "conversationList", "list")))}
	return czCanvas(t, nodes, czEdge("100001", "200"), czEdge("200", "210"), czEdge("210", "300"), czEdge("300", "310"),
		czEdge("310", "400"), czEdge("400", "500"), czEdge("500", "600"), czEdge("600", "900001"))
}

// TestCozeConversationNodes: imported Coze conversation and message nodes
// keep named conversations per end user of the app, stored as Pergola
// conversations the Coze conversation API reads too; runs and stream_runs
// share them.
func TestCozeConversationNodes(t *testing.T) {
	for _, b := range backends() {
		t.Run(b.name, func(t *testing.T) {
			c := newChatSetup(t, b)
			created := c.s.call(t, "POST", "/api/apps", bootstrapToken, cz{"workspace_id": c.ws, "name": "notes",
				"conversations": []string{"Support"}}).must(t, 201)
			if got := string(mustJSON(created.data["conversations"])); got != `["Default","Support"]` {
				t.Fatalf("the app's conversation templates = %s", got)
			}
			appID := str(created.data, "id")
			id := c.importPublished(t, "conversations", conversationCanvas(t), nil)
			run := func(user string, params cz) map[string]any {
				return decodeData(t, c.s.call(t, "POST", "/v1/workflow/run", bootstrapToken, cz{"workflow_id": id, "app_id": appID,
					"parameters": params, "ext": cz{"user_id": user}}).must(t, 200))
			}
			streamed := func(user string, params cz) map[string]any {
				return c.runStreamed(t, cz{"workflow_id": id, "app_id": appID, "parameters": params, "ext": cz{"user_id": user}})
			}
			out := run("ann", cz{"name": "trip", "question": "where to?", "answer": "Lisbon"})
			latest, _ := out["latest"].([]any)
			history := string(mustJSON(out["history"]))
			if out["existed"] != true || len(latest) != 1 || latest[0].(map[string]any)["content"] != "Lisbon" ||
				history != `[{"content":"where to?","role":"user"},{"content":"Lisbon","role":"assistant"}]` {
				t.Fatalf("first run = %v", out)
			}
			convID := out["id"].(string)
			listed := c.s.call(t, "POST", "/v1/conversation/message/list?conversation_id="+convID, bootstrapToken, cz{}).must(t, 200)
			if s := string(mustJSON(listed.raw["data"])); !strings.Contains(s, "where to?") || !strings.Contains(s, "Lisbon") {
				t.Fatalf("the Coze API lists %s", s)
			}

			again := streamed("ann", cz{"name": "trip", "question": "and then?", "answer": "Porto"})
			if again["id"] != convID || !strings.Contains(string(mustJSON(again["history"])), "where to?") {
				t.Fatalf("ann's second run = %v", again)
			}
			bo := streamed("bo", cz{"name": "trip", "question": "hi", "answer": "hello"})
			if bo["id"] == convID || strings.Contains(string(mustJSON(bo["history"])), "where to?") {
				t.Fatalf("bo sees ann's conversation: %v", bo)
			}
			// As Coze lists them: the app's templates first (id 0 while
			// none was made for this user), then those nodes made.
			want := `[{"conversationId":"0","conversationName":"Default"},{"conversationId":"0","conversationName":"Support"},` +
				`{"conversationId":"` + bo["id"].(string) + `","conversationName":"trip"}]`
			if all := string(mustJSON(bo["all"])); all != want {
				t.Fatalf("bo's conversations = %s, want %s", all, want)
			}
			c.templatesAreReadOnly(t, appID)
			noApp := c.s.call(t, "POST", "/v1/workflow/run", bootstrapToken, cz{"workflow_id": id, "parameters": cz{"name": "x"}})
			if !strings.Contains(noApp.msg, "conversation nodes need an app") {
				t.Fatalf("a run without app_id: %d %q", noApp.status, noApp.msg)
			}
		})
	}
}

// templatesAreReadOnly: renaming or deleting one of the app's
// conversation templates fails the node naming the rule, as in Coze; a
// conversation a node made can be renamed and deleted.
func (c *chatSetup) templatesAreReadOnly(t *testing.T, appID string) {
	t.Helper()
	name := czParam("conversationName", czRef("100001", "name", "string"))
	update := czNode("200", "51", "Rename", cz{"inputParameters": []cz{name, czParam("newConversationName", czLit("string", "renamed"))}})
	rename := c.importPublished(t, "rename", czCanvas(t, []cz{czStart(czOut("name", "string")), update,
		czEnd(czParam("ok", czRef("200", "isSuccess", "boolean")))}, czEdge("100001", "200"), czEdge("200", "900001")), nil)
	del := czNode("200", "52", "Delete", cz{"inputParameters": []cz{name}})
	remove := c.importPublished(t, "remove", czCanvas(t, []cz{czStart(czOut("name", "string")), del,
		czEnd(czParam("ok", czRef("200", "isSuccess", "boolean")))}, czEdge("100001", "200"), czEdge("200", "900001")), nil)
	run := func(id, conv string) reply {
		return c.s.call(t, "POST", "/v1/workflow/run", bootstrapToken, cz{"workflow_id": id, "app_id": appID,
			"parameters": cz{"name": conv}, "ext": cz{"user_id": "ann"}})
	}
	for _, id := range []string{rename, remove} {
		for _, tpl := range []string{"Default", "Support"} {
			r := run(id, tpl)
			if r.status != 400 || !strings.Contains(r.msg, `conversation "`+tpl+`" is one of the app's conversation templates`) {
				t.Fatalf("changing template %s: %d %q", tpl, r.status, r.msg)
			}
		}
	}
	if out := decodeData(t, run(rename, "trip").must(t, 200)); out["ok"] != true {
		t.Fatalf("renaming trip = %v", out)
	}
	if out := decodeData(t, run(remove, "renamed").must(t, 200)); out["ok"] != true {
		t.Fatalf("deleting the renamed conversation = %v", out)
	}
}
