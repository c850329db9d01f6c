package main

import (
	"bytes"
	"database/sql"
	"encoding/json"
	"net/http"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/pergola-ai/pergola/infra/fakellm"
)

// TestFaultKill9DuringChatAndSyncRunOnSQLite kills the pergola binary
// (SIGKILL, nothing flushed) while a streamed chat is answering and a
// synchronous workflow run is busy in its second node, then starts it
// again on the same SQLite data directory. The chat ends failed with a
// message saying what happened, never stuck in progress; its question is
// stored once and no half answer is; the conversation answers again. The
// run ends failed with the reason, its history holds the node that
// finished before the crash, once, and no node still running.
func TestFaultKill9DuringChatAndSyncRunOnSQLite(t *testing.T) {
	bin := buildPergola(t)
	llm := fakellm.New(fakellm.WithChunkChars(1), fakellm.WithTokenLatency(30*time.Millisecond))
	url, err := llm.Listen("127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer llm.Close()
	env := map[string]string{"PERGOLA_DATA_DIR": t.TempDir(), "PERGOLA_WORKFLOW_LEASE": "1s"}
	p1 := startProcess(t, bin, env)
	forgetConnections()
	botID := faultBot(t, p1.testServer, url)
	wfID, runID := startSlowSyncRun(t, p1, env["PERGOLA_DATA_DIR"])
	question := "a question asked right before the crash"
	chat := openChat(t, p1.testServer, botID, "", question)
	convID, chatID := chat.conv, chat.id
	p1.kill(t)

	p2 := startProcess(t, bin, env)
	forgetConnections()
	checkChatFailedOnce(t, p2.testServer, convID, chatID, question)
	events := p2.stream(t, "/v3/chat?conversation_id="+convID, bootstrapToken, map[string]any{"bot_id": botID,
		"user_id": "u", "stream": true, "additional_messages": userMessage("again")})
	if got := names(events); got[len(got)-2] != "conversation.chat.completed" {
		t.Fatalf("after the restart the conversation answers %v", got)
	}
	msgs := conversationMessages(t, p2.testServer, convID)
	if countMessages(msgs, "user", question) != 1 || countMessages(msgs, "assistant", "echo: again") != 1 {
		t.Fatalf("the conversation after the restart holds:%s", fmtMessages(msgs))
	}
	checkRunFailed(t, p2, wfID, runID)
}

// startSlowSyncRun publishes slowWorkflow and starts a synchronous run of
// it that stays busy for 20s; it returns once the run's first node is
// recorded, with the workflow and the run (found in the database: a
// synchronous run names its id only when it ends).
func startSlowSyncRun(t *testing.T, p *process, dataDir string) (string, string) {
	t.Helper()
	ws := str(items(t, p.call(t, "GET", "/v1/workspaces", bootstrapToken, nil).must(t, 200).data, "workspaces")[0], "id")
	wfID := str(p.call(t, "POST", "/api/workflows", bootstrapToken, map[string]any{"workspace_id": ws, "name": "slow",
		"definition": json.RawMessage(slowWorkflow)}).must(t, 201).data, "id")
	p.call(t, "POST", "/api/workflows/"+wfID+"/publish", bootstrapToken, nil).must(t, 201)
	body, _ := json.Marshal(map[string]any{"workflow_id": wfID, "parameters": map[string]any{"ms": 20000}})
	req, _ := http.NewRequest("POST", p.base+"/v1/workflow/run", bytes.NewReader(body))
	req.Header.Set("Authorization", "Bearer "+bootstrapToken)
	req.Header.Set("Content-Type", "application/json")
	go func() { // the answer never comes: the process dies first
		if resp, err := http.DefaultClient.Do(req); err == nil {
			_ = resp.Body.Close()
		}
	}()
	db, err := sql.Open("sqlite", filepath.Join(dataDir, "pergola.db")+"?_pragma=busy_timeout(5000)")
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	var runID int64
	waitFor(t, "the synchronous run to be stored", func() bool {
		return db.QueryRow("SELECT id FROM workflow_runs WHERE workflow_id = ?", wfID).Scan(&runID) == nil
	})
	id := strconv.FormatInt(runID, 10)
	waitHistory(t, p.testServer, wfID, id, "the first node to finish", func(h map[string]any) bool {
		return nodeStatuses(t, h)["first"] == "success"
	})
	return wfID, id
}

// checkChatFailedOnce waits for the chat to end and checks it failed with
// the recovery's message, with its question stored once and no answer.
func checkChatFailedOnce(t *testing.T, s *testServer, convID, chatID, question string) {
	t.Helper()
	final := waitChat(t, s, convID, chatID)
	lastErr, _ := final["last_error"].(map[string]any)
	if str(final, "status") != "failed" || !strings.Contains(str(lastErr, "msg"), "stopped") {
		t.Fatalf("the chat of the killed process ended %v", final)
	}
	msgs := conversationMessages(t, s, convID)
	if countMessages(msgs, "user", question) != 1 {
		t.Fatalf("the question is not stored exactly once:%s", fmtMessages(msgs))
	}
	for _, m := range msgs {
		if str(m, "chat_id") == chatID && str(m, "role") == "assistant" {
			t.Fatalf("a half answer of the killed chat is stored:%s", fmtMessages(msgs))
		}
	}
}

// checkRunFailed waits for the run to end and checks it failed with the
// reason and a consistent history.
func checkRunFailed(t *testing.T, p *process, wfID, runID string) {
	t.Helper()
	h := waitHistory(t, p.testServer, wfID, runID, "the run to end", func(h map[string]any) bool {
		return str(h, "execute_status") != "Running"
	})
	if str(h, "execute_status") != "Fail" || !strings.Contains(str(h, "error_message"), "stopped") {
		t.Fatalf("the run of the killed process ended %s: %q", str(h, "execute_status"), str(h, "error_message"))
	}
	counts := map[string]int{}
	for _, n := range items(t, h, "nodes") {
		counts[str(n, "node_id")]++
	}
	statuses := nodeStatuses(t, h)
	if counts["first"] != 1 || statuses["first"] != "success" || statuses["slow"] == "success" || statuses["end"] == "success" {
		t.Fatalf("the history of the killed run: nodes %v, statuses %v", counts, statuses)
	}
	for node, st := range statuses {
		if st == "running" {
			t.Fatalf("node %s is still running in the history of the killed run: %v", node, statuses)
		}
	}
}

// waitChat polls a chat until it is no longer in progress, every 100ms
// (the rate limit stays far) for at most 30s, and returns it.
func waitChat(t *testing.T, s *testServer, convID, chatID string) map[string]any {
	t.Helper()
	var chat map[string]any
	waitFor(t, "chat "+chatID+" to end", func() bool {
		chat = s.call(t, "GET", "/v3/chat/retrieve?conversation_id="+convID+"&chat_id="+chatID, bootstrapToken, nil).must(t, 200).data
		st := str(chat, "status")
		return st != "in_progress" && st != "created"
	})
	return chat
}

// forgetConnections drops the test client's idle keep-alive connections:
// a process started on the port of one killed earlier must not get the
// dead one's connections (the first request would be reset).
func forgetConnections() { http.DefaultClient.CloseIdleConnections() }
