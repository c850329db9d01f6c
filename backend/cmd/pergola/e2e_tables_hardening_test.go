package main

import (
	"strings"
	"testing"

	"github.com/pergola-ai/pergola/infra/sqlguard/sqlguardtest"
)

// TestTablesHardeningChat drives a published bot with a per_user table
// through /v3/chat, on SQLite and on MariaDB. The fake model sends the
// reported amplifier (nested REPLACE): the model reads a refusal it can
// act on and the server stays ready. Alice inserts a row; end users whose
// ids a collation would take for hers see nothing ("Alice", a Cyrillic
// "аlice"), and ids with trailing spaces or NUL are refused with a 400
// naming user_id.
func TestTablesHardeningChat(t *testing.T) {
	for _, b := range tableBackends() {
		t.Run(b.name, func(t *testing.T) {
			c := newChatSetup(t, b)
			s := c.s
			tbl := s.call(t, "POST", "/api/tables", bootstrapToken, map[string]any{
				"workspace_id": c.ws, "name": "notes", "mode": "per_user",
				"fields": []map[string]any{{"name": "text", "type": "text", "required": true}},
			}).must(t, 201)
			botID := c.bot(t, map[string]any{"name": "Notes", "model": map[string]any{"model_id": "fake"},
				"tables": []map[string]any{{"table_id": str(tbl.data, "id")}}})
			chat := func(user, sql string) string {
				t.Helper()
				events := s.stream(t, "/v3/chat", bootstrapToken, map[string]any{"bot_id": botID, "user_id": user, "stream": true,
					"additional_messages": sqlCall("notes", sql)})
				return answerText(t, events)
			}

			if got := chat("alice", sqlguardtest.Reported); !strings.HasPrefix(got, "tool said: error: the value of") || !strings.Contains(got, "LEFT(") {
				t.Errorf("the amplifier answered %q", got)
			}
			if st, _, body := s.raw(t, "GET", "/readyz", bootstrapToken, ""); st != 200 {
				t.Fatalf("after the amplifier /readyz = %d %s", st, body)
			}

			if got := chat("alice", "INSERT INTO notes (text) VALUES ('of alice')"); !strings.HasPrefix(got, `tool said: {"affected_rows":1`) {
				t.Fatalf("alice's insert answered %q", got)
			}
			for _, user := range []string{"Alice", "\u0430lice"} {
				if got := chat(user, "SELECT COUNT(*) AS n FROM notes"); got != `tool said: {"columns":["n"],"rows":[[0]],"row_count":1}` {
					t.Errorf("%q counts %q", user, got)
				}
			}
			for _, user := range []string{"alice ", " alice", "alice\x00", "alice\t"} {
				r := s.call(t, "POST", "/v3/chat", bootstrapToken, map[string]any{"bot_id": botID, "user_id": user, "stream": false,
					"additional_messages": sqlCall("notes", "SELECT * FROM notes")})
				if r.status != 400 || !strings.Contains(r.msg, "user_id") {
					t.Errorf("user %q: status %d msg %q, want 400 naming user_id", user, r.status, r.msg)
				}
			}
			if got := chat("alice", "SELECT text FROM notes"); got != `tool said: {"columns":["text"],"rows":[["of alice"]],"row_count":1}` {
				t.Errorf("alice reads %q", got)
			}
		})
	}
}
