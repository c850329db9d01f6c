package main

import (
	"strings"
	"testing"
	"time"

	"github.com/pergola-ai/pergola/infra/fakellm"
)

// TestFaultMariaDBRestartedMidRun runs pergola on a private MariaDB (never
// the shared one: other tests use it) and kills the database while a
// streamed chat is answering. While it is down, API calls answer 503 with
// Retry-After and say the database is unavailable, and /readyz says so
// too; a bot created then is not half-stored. Once the same database is
// started again, pergola recovers by itself, without a restart: the chat
// that was answering is recorded completed with its answer once (its end
// is retried), the API works, and the conversation answers again.
func TestFaultMariaDBRestartedMidRun(t *testing.T) {
	mdb, dsn := privateMariaDB(t)
	llm := fakellm.New(fakellm.WithChunkChars(1), fakellm.WithTokenLatency(40*time.Millisecond))
	url, err := llm.Listen("127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer llm.Close()
	s := startServer(t, map[string]string{"PERGOLA_DB_DSN": dsn, "PERGOLA_WORKFLOW_LEASE": "1s",
		"PERGOLA_SECRET_KEY": strings.Repeat("0123456789abcdef", 4)})
	botID := faultBot(t, s, url)
	ws := str(items(t, s.call(t, "GET", "/v1/workspaces", bootstrapToken, nil).must(t, 200).data, "workspaces")[0], "id")
	question := "a question whose answer outlives the database for a few seconds"
	chat := openChat(t, s, botID, "", question)
	convID, chatID := chat.conv, chat.id

	mdb.kill()
	checkDatabaseDown(t, s, ws)
	chat.until(t, "conversation.message.completed") // the answer is complete; recording it waits for the database
	mdb.start(t)
	waitFor(t, "/readyz to answer 200 again", func() bool { st, _, _ := rawStatus(s, "/readyz"); return st == 200 })

	final := waitChat(t, s, convID, chatID)
	if str(final, "status") != "completed" {
		t.Fatalf("the chat answering through the outage ended %v", final)
	}
	msgs := conversationMessages(t, s, convID)
	if countMessages(msgs, "user", question) != 1 || countMessages(msgs, "assistant", "echo: "+question) != 1 {
		t.Fatalf("after the outage the conversation holds:%s", fmtMessages(msgs))
	}
	bots := s.call(t, "GET", "/api/bots?workspace_id="+ws, bootstrapToken, nil).must(t, 200)
	for _, b := range items(t, bots.data, "items") {
		if str(b, "name") == "made during the outage" {
			t.Fatalf("a bot refused during the outage exists: %v", b)
		}
	}
	s.call(t, "POST", "/api/bots", bootstrapToken, map[string]any{"workspace_id": ws, "name": "made after"}).must(t, 201)
	events := s.stream(t, "/v3/chat?conversation_id="+convID, bootstrapToken, map[string]any{"bot_id": botID,
		"user_id": "u", "stream": true, "additional_messages": userMessage("still there?")})
	if got := names(events); got[len(got)-2] != "conversation.chat.completed" {
		t.Fatalf("after the outage the conversation answers %v", got)
	}
}

// checkDatabaseDown checks what clients see while the database is down.
func checkDatabaseDown(t *testing.T, s *testServer, ws string) {
	t.Helper()
	for _, path := range []string{"/v1/workspaces", "/api/bots?workspace_id=" + ws} {
		status, retry, msg := rawStatus(s, path)
		if status != 503 || retry == "" || !strings.Contains(msg, "database is unavailable") {
			t.Fatalf("GET %s with the database down answered %d, Retry-After %q, %q; want 503 with Retry-After saying so",
				path, status, retry, msg)
		}
	}
	r := s.call(t, "POST", "/api/bots", bootstrapToken, map[string]any{"workspace_id": ws, "name": "made during the outage"})
	if r.status != 503 || r.header.Get("Retry-After") == "" {
		t.Fatalf("creating a bot with the database down answered %d %q", r.status, r.msg)
	}
	if status, _, _ := rawStatus(s, "/readyz"); status != 503 {
		t.Fatalf("/readyz with the database down answered %d, want 503", status)
	}
}
