package main

import (
	"encoding/json"
	"strconv"
	"testing"
	"time"

	"github.com/pergola-ai/pergola/infra/fakellm"
)

// TestUsage runs five chats on two bots (the fake model reporting fixed
// token counts) and three workflow runs (one failing), then reads
// GET /api/usage: totals per bot and per day exact, the bot filter, the
// administrator's view across workspaces, another workspace's member
// refused, bad inputs 400 naming the field. On SQLite and on MariaDB with
// Redis.
func TestUsage(t *testing.T) {
	for _, b := range backends() {
		t.Run(b.name, func(t *testing.T) {
			c := newChatSetup(t, b)
			s := c.s
			day := time.Now().UTC().Format("2006-01-02")
			started := time.Now()
			botA := c.bot(t, map[string]any{"name": "A", "prompt": "p", "model": map[string]any{"model_id": "fake"}})
			botB := c.bot(t, map[string]any{"name": "B", "prompt": "p", "model": map[string]any{"model_id": "fake"}})
			usageChats(t, c, botA, 3, 7, 3)
			usageChats(t, c, botB, 2, 11, 5)
			usageRuns(t, s)
			wall := time.Since(started).Milliseconds()
			sameDay := time.Now().UTC().Format("2006-01-02") == day

			q := "/api/usage?workspace_id=" + c.ws
			perBot := usageItems(t, s, q+"&group_by=bot,model", bootstrapToken)
			want := map[string][5]float64{ // chats, runs, errors, input, output
				"0": {0, 3, 1, 0, 0}, botA: {3, 0, 0, 21, 9}, botB: {2, 0, 0, 22, 10}}
			if len(perBot) != 3 {
				t.Fatalf("per bot = %v, want 3 items", perBot)
			}
			for _, it := range perBot {
				checkUsageItem(t, it, want[str(it, "bot_id")], wall)
				if _, ok := it["day"]; ok {
					t.Errorf("day present when not grouped by it: %v", it)
				}
				if m := str(it, "model"); (str(it, "bot_id") == "0") != (m == "") || (m != "" && m != "fake") {
					t.Errorf("model of %v", it)
				}
			}
			if sameDay {
				perDay := usageItems(t, s, q, bootstrapToken)
				if len(perDay) != 1 || str(perDay[0], "day") != day || perDay[0]["bot_id"] != nil {
					t.Fatalf("per day = %v, want one item for %s", perDay, day)
				}
				checkUsageItem(t, perDay[0], [5]float64{5, 3, 1, 43, 19}, wall)
			}
			one := usageItems(t, s, q+"&group_by=bot&bot_id="+botA, bootstrapToken)
			if len(one) != 1 || str(one[0], "bot_id") != botA {
				t.Fatalf("bot_id filter = %v", one)
			}
			checkUsageItem(t, one[0], want[botA], wall)
			all := usageItems(t, s, "/api/usage?group_by=workspace", bootstrapToken)
			if len(all) != 1 || str(all[0], "workspace_id") != c.ws {
				t.Fatalf("administrator's view = %v", all)
			}
			checkUsageRefused(t, s, q)
		})
	}
}

// usageChats runs n chats on a bot, the fake model reporting in and out
// tokens for each.
func usageChats(t *testing.T, c *chatSetup, botID string, n, in, out int) {
	t.Helper()
	for i := 0; i < n; i++ {
		c.llm.Enqueue(fakellm.Reply{Text: "ok", Usage: &fakellm.Usage{PromptTokens: in, CompletionTokens: out}})
		events := c.s.stream(t, "/v3/chat", bootstrapToken, map[string]any{"bot_id": botID, "user_id": "u1",
			"additional_messages": userMessage("hello " + strconv.Itoa(i)), "stream": true})
		if got := names(events); got[len(got)-2] != "conversation.chat.completed" {
			t.Fatalf("chat events = %v", got)
		}
	}
}

// usageRuns runs the greetOrFail workflow twice well and once failing.
func usageRuns(t *testing.T, s *testServer) {
	t.Helper()
	ws := str(items(t, s.call(t, "GET", "/v1/workspaces", bootstrapToken, nil).must(t, 200).data, "workspaces")[0], "id")
	id := str(s.call(t, "POST", "/api/workflows", bootstrapToken, map[string]any{"workspace_id": ws, "name": "greet",
		"definition": json.RawMessage(greetOrFail)}).must(t, 201).data, "id")
	s.call(t, "POST", "/api/workflows/"+id+"/publish", bootstrapToken, nil).must(t, 201)
	for _, name := range []string{"ada", "bo"} {
		s.call(t, "POST", "/v1/workflow/run", bootstrapToken, map[string]any{"workflow_id": id,
			"parameters": map[string]any{"name": name}}).must(t, 200)
	}
	s.call(t, "POST", "/v1/workflow/run", bootstrapToken, map[string]any{"workflow_id": id,
		"parameters": map[string]any{"name": "fail"}}).fails(t, 400, 4000, "boom")
}

func usageItems(t *testing.T, s *testServer, path, token string) []map[string]any {
	t.Helper()
	r := s.call(t, "GET", path, token, nil).must(t, 200)
	if r.data["truncated"] != false || r.data["from"].(float64) >= r.data["to"].(float64) {
		t.Fatalf("%s: report = %v", path, r.data)
	}
	return items(t, r.data, "items")
}

// checkUsageItem compares the counts and checks the latencies are
// ordered and within the test's own duration.
func checkUsageItem(t *testing.T, it map[string]any, want [5]float64, wall int64) {
	t.Helper()
	got := [5]float64{}
	for i, k := range []string{"chats", "runs", "errors", "input_tokens", "output_tokens"} {
		got[i], _ = it[k].(float64)
	}
	if got != want {
		t.Errorf("item %v: chats, runs, errors, in, out = %v, want %v", it, got, want)
	}
	p50, p95 := it["latency_p50_ms"].(float64), it["latency_p95_ms"].(float64)
	if p50 < 0 || p95 < p50 || p95 > float64(wall) {
		t.Errorf("item %v: latencies p50 %v p95 %v outside [0, %d]", it, p50, p95, wall)
	}
}

// checkUsageRefused checks bad inputs and another workspace's member.
func checkUsageRefused(t *testing.T, s *testServer, q string) {
	t.Helper()
	s.call(t, "GET", q+"&group_by=day,hour", bootstrapToken, nil).fails(t, 400, 4000, "group_by: must be a comma list")
	s.call(t, "GET", q+"&from=2000&to=1000", bootstrapToken, nil).fails(t, 400, 4000, "from: must not be after to")
	s.call(t, "GET", q+"&from=1&to=10000000", bootstrapToken, nil).fails(t, 400, 4000, "to: the range may cover at most 92 days")
	s.call(t, "GET", q+"&from=yesterday", bootstrapToken, nil).fails(t, 400, 4000, "from: must be a time in Unix seconds")
	s.call(t, "GET", q+"&bot_id=abc", bootstrapToken, nil).fails(t, 400, 4000, "bot_id")
	s.call(t, "GET", "/api/usage?workspace_id=x1", bootstrapToken, nil).fails(t, 400, 4000, "workspace_id")
	s.call(t, "POST", "/api/admin/users", bootstrapToken, map[string]any{"email": "eve@example.com", "name": "Eve", "password": "eve-password-1"}).must(t, 201)
	eve := str(s.call(t, "POST", "/api/auth/login", "", map[string]any{"email": "eve@example.com", "password": "eve-password-1"}).must(t, 200).data, "token")
	s.call(t, "GET", q, eve, nil).fails(t, 403, 4101, "not a member")
	s.call(t, "GET", "/api/usage", eve, nil).fails(t, 400, 4000, "workspace_id: is required")
	s.call(t, "GET", q, "", nil).fails(t, 401, 4100, "")
}
