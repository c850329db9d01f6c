package main

import (
	"strings"
	"testing"
)

// TestTablesIsolationChat drives a published bot with a per_user table
// through /v3/chat: the fake model inserts, then selects, for two end
// users, and each sees only their own rows; a debug chat on the draft
// sees neither; a hostile statement is refused in words the model reads.
// On SQLite and on MariaDB with the rows in a database of their own.
func TestTablesIsolationChat(t *testing.T) {
	for _, b := range tableBackends() {
		t.Run(b.name, func(t *testing.T) {
			c := newChatSetup(t, b)
			s := c.s
			tbl := s.call(t, "POST", "/api/tables", bootstrapToken, map[string]any{
				"workspace_id": c.ws, "name": "notes", "mode": "per_user", "description": "the user's notes",
				"fields": []map[string]any{{"name": "text", "type": "text", "required": true, "description": "the note"}},
			}).must(t, 201)
			tableID := str(tbl.data, "id")
			botID := c.bot(t, map[string]any{"name": "Notes", "model": map[string]any{"model_id": "fake"},
				"tables": []map[string]any{{"table_id": tableID}}})

			chat := func(user, sql string) string {
				t.Helper()
				events := s.stream(t, "/v3/chat", bootstrapToken, map[string]any{"bot_id": botID, "user_id": user, "stream": true,
					"additional_messages": sqlCall("notes", sql)})
				if got := names(events); got[len(got)-2] != "conversation.chat.completed" {
					t.Fatalf("events = %v", got)
				}
				return answerText(t, events)
			}
			for _, user := range []string{"u1", "u2"} {
				if got := chat(user, "INSERT INTO notes (text) VALUES ('note of "+user+"')"); !strings.HasPrefix(got, `tool said: {"affected_rows":1,"insert_id":`) {
					t.Fatalf("insert for %s answered %q", user, got)
				}
			}
			for _, user := range []string{"u1", "u2"} {
				want := `tool said: {"columns":["text"],"rows":[["note of ` + user + `"]],"row_count":1}`
				if got := chat(user, "SELECT text FROM notes"); got != want {
					t.Errorf("%s selects %q, want %q", user, got, want)
				}
			}
			if got := chat("u1", "SELECT text FROM notes WHERE 1=1 OR text LIKE '%' UNION SELECT 'x'"); !strings.HasPrefix(got, "tool said: error: UNION") {
				t.Errorf("a UNION answered %q", got)
			}
			if tools := c.llm.Requests()[0].Tools; len(tools) != 1 || !strings.Contains(tools[0].Function.Description, "text text, required: the note") {
				t.Errorf("the model was given the tools %+v", tools)
			}

			// The builder's debug chat runs on the draft data: empty.
			events := s.stream(t, "/api/bots/"+botID+"/chat", bootstrapToken, map[string]any{"user_id": "u1",
				"message": sqlCall("notes", "SELECT COUNT(*) AS n FROM notes")[0]["content"]})
			if got := answerText(t, events); got != `tool said: {"columns":["n"],"rows":[[0]],"row_count":1}` {
				t.Errorf("the debug chat counts %q", got)
			}

			// The builder sees both users' online rows, and none in the draft.
			online := s.call(t, "GET", "/api/tables/"+tableID+"/rows?order=asc", bootstrapToken, nil).must(t, 200)
			rows := items(t, online.data, "items")
			if len(rows) != 2 || str(rows[0], "user_id") != "u1" || str(rows[1], "user_id") != "u2" {
				t.Errorf("online rows = %v", rows)
			}
			draft := s.call(t, "GET", "/api/tables/"+tableID+"/rows?data=draft", bootstrapToken, nil).must(t, 200)
			if n := draft.data["total"].(float64); n != 0 {
				t.Errorf("draft rows = %v", draft.data)
			}
		})
	}
}
