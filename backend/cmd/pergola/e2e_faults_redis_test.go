package main

import (
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/pergola-ai/pergola/infra/fakellm"
	"github.com/pergola-ai/pergola/infra/testenv"
)

// llmWorkflow asks the model once: as long as the fake model takes to
// answer, without using a core.
const llmWorkflow = `{"nodes": [
  {"id": "start", "type": "start", "outputs": [{"name": "q", "type": "string", "required": true}]},
  {"id": "ask", "type": "llm", "config": {"model_id": "slow", "prompt": "{{q}}"}, "inputs": {"q": {"ref": {"node": "start", "path": "q"}}}},
  {"id": "end", "type": "end", "inputs": {"answer": {"ref": {"node": "ask", "path": "output"}}}}],
 "edges": [{"from": "start", "to": "ask"}, {"from": "ask", "to": "end"}]}`

// TestFaultRedisDownFor10sWithTwoProcesses runs two pergola processes on
// one MariaDB database and a private Redis, which is killed for 10s (and
// comes back empty: no persistence) while async runs fill every worker
// and wait on the queue and a chat is answering. What degrades: rate
// limits let requests through (fail open), cancels reach only the process
// that receives them, the queue takes nothing new. What does not: chats
// start and complete on both processes, readiness reports Redis down.
// Afterwards both recover by themselves: every async run accepted before
// or during the outage succeeds (runs lost with the queue are queued again
// from the database once their lease ends), no chat stays in progress,
// and a cancel sent to one process stops a chat running on the other.
func TestFaultRedisDownFor10sWithTwoProcesses(t *testing.T) {
	bin := buildPergola(t)
	rdb := privateRedis(t)
	llm := fakellm.New(fakellm.WithChunkChars(1), fakellm.WithTokenLatency(40*time.Millisecond))
	url, err := llm.Listen("127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer llm.Close()
	env := map[string]string{"PERGOLA_DB_DSN": testenv.MySQL(t), "PERGOLA_REDIS_ADDR": rdb.addr(),
		"PERGOLA_WORKFLOW_LEASE": "1500ms", "PERGOLA_SECRET_KEY": strings.Repeat("0123456789abcdef", 4)}
	p1, p2 := startProcess(t, bin, env), startProcess(t, bin, env)
	forgetConnections()
	botID := faultBot(t, p1.testServer, url)
	wfID := publishWorkflow(t, p1.testServer, llmWorkflow)
	var runs []string
	for i := range 10 { // 8 workers in all: some runs wait in Redis
		runs = append(runs, queueRun(t, []*process{p1, p2}[i%2], wfID))
	}
	chat := openChat(t, p2.testServer, botID, "", "a question answered while Redis goes away")

	rdb.kill()
	down := time.Now()
	runs = append(runs, duringRedisOutage(t, p1, p2, botID, wfID)...)
	time.Sleep(10*time.Second - time.Since(down))
	rdb.start(t)

	for _, p := range []*process{p1, p2} {
		waitFor(t, "/readyz to answer 200 again", func() bool { st, _, _ := rawStatus(p.testServer, "/readyz"); return st == 200 })
	}
	if final := waitChat(t, p2.testServer, chat.conv, chat.id); str(final, "status") != "completed" {
		t.Fatalf("the chat answering through the outage ended %v", final)
	}
	for i, run := range runs {
		h := waitHistory(t, []*process{p1, p2}[i%2].testServer, wfID, run, "the run to end", func(h map[string]any) bool {
			return str(h, "execute_status") != "Running"
		})
		if str(h, "execute_status") != "Success" {
			t.Fatalf("async run %d of %d ended %s: %s", i+1, len(runs), str(h, "execute_status"), str(h, "error_message"))
		}
	}
	checkCancelAcrossProcesses(t, p1, p2, botID)
}

// duringRedisOutage checks what works while Redis is down and returns the
// async runs accepted meanwhile, which must succeed later.
func duringRedisOutage(t *testing.T, p1, p2 *process, botID, wfID string) []string {
	t.Helper()
	for _, p := range []*process{p1, p2} {
		if st, _, _ := rawStatus(p.testServer, "/readyz"); st != 503 {
			t.Fatalf("/readyz with Redis down answered %d, want 503", st)
		}
		p.call(t, "GET", "/v1/workspaces", bootstrapToken, nil).must(t, 200) // rate limit fails open
		events := p.stream(t, "/v3/chat", bootstrapToken, map[string]any{"bot_id": botID, "user_id": "u", "stream": true,
			"additional_messages": userMessage("hi")})
		if got := names(events); got[len(got)-2] != "conversation.chat.completed" {
			t.Fatalf("a chat with Redis down: %v", got)
		}
	}
	r := p1.call(t, "POST", "/v1/workflow/run", bootstrapToken, map[string]any{"workflow_id": wfID, "is_async": true,
		"parameters": map[string]any{"q": "queued while Redis is down"}})
	switch {
	case r.status == 200 && r.code == 0:
		return []string{str(r.raw, "execute_id")}
	case (r.status == 503 || r.status == 429) && r.header.Get("Retry-After") != "":
		return nil
	}
	t.Fatalf("an async run with Redis down answered %d %d %q; want it accepted, or refused with Retry-After", r.status, r.code, r.msg)
	return nil
}

// checkCancelAcrossProcesses starts a chat on p1 and cancels it through
// p2: the cancel travels by Redis pub/sub, so p1 stops the run and no
// answer is stored.
func checkCancelAcrossProcesses(t *testing.T, p1, p2 *process, botID string) {
	t.Helper()
	chat := openChat(t, p1.testServer, botID, "", "a question nobody waits for the answer to")
	p2.call(t, "POST", "/v3/chat/cancel", bootstrapToken, map[string]any{"conversation_id": chat.conv, "chat_id": chat.id}).must(t, 200)
	chat.until(t, "conversation.chat.canceled")
	for _, m := range conversationMessages(t, p1.testServer, chat.conv) {
		if str(m, "role") == "assistant" && str(m, "type") == "answer" {
			t.Fatalf("the chat cancelled through the other process ran on and stored %q", str(m, "content"))
		}
	}
}

// publishWorkflow creates and publishes a workflow; it returns its id.
func publishWorkflow(t *testing.T, s *testServer, def string) string {
	t.Helper()
	ws := str(items(t, s.call(t, "GET", "/v1/workspaces", bootstrapToken, nil).must(t, 200).data, "workspaces")[0], "id")
	id := str(s.call(t, "POST", "/api/workflows", bootstrapToken, map[string]any{"workspace_id": ws, "name": "ask",
		"definition": json.RawMessage(def)}).must(t, 201).data, "id")
	s.call(t, "POST", "/api/workflows/"+id+"/publish", bootstrapToken, nil).must(t, 201)
	return id
}

// queueRun starts an async run and returns its execute id.
func queueRun(t *testing.T, p *process, wfID string) string {
	t.Helper()
	r := p.call(t, "POST", "/v1/workflow/run", bootstrapToken, map[string]any{"workflow_id": wfID, "is_async": true,
		"parameters": map[string]any{"q": "a question that takes the model a while"}}).must(t, 200)
	return str(r.raw, "execute_id")
}
