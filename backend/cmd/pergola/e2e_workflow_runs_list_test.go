package main

import (
	"encoding/json"
	"strconv"
	"strings"
	"testing"
	"time"
)

// greetOrFail greets its name, or throws when the name is "fail".
const greetOrFail = `{
  "nodes": [
    {"id": "start", "type": "start", "outputs": [{"name": "name", "type": "string", "required": true}]},
    {"id": "which", "type": "condition", "config": {"branches": [{"port": "bad", "conditions": [{"left": "n", "op": "eq", "value": "fail"}]}]},
     "inputs": {"n": {"ref": {"node": "start", "path": "name"}}}},
    {"id": "boom", "type": "code", "config": {"code": "function main() { throw new Error('boom'); }"}, "outputs": [{"name": "x", "type": "string"}]},
    {"id": "hi", "type": "text", "config": {"op": "template", "template": "hi {{n}}"}, "inputs": {"n": {"ref": {"node": "start", "path": "name"}}}},
    {"id": "end", "type": "end"}
  ],
  "edges": [{"from": "start", "to": "which"}, {"from": "which", "from_port": "bad", "to": "boom"}, {"from": "which", "from_port": "else", "to": "hi"},
            {"from": "boom", "to": "end"}, {"from": "hi", "to": "end"}]
}`

// TestWorkflowRunsList runs a workflow four ways (a console test run, two
// API runs for user u1, a failing one for u2) and lists its runs through
// GET /api/workflows/{id}/runs: newest first, each filter, paging, bad
// filters refused with the field named, another workspace's member 404.
// On SQLite and on MariaDB with Redis.
func TestWorkflowRunsList(t *testing.T) {
	for _, b := range backends() {
		t.Run(b.name, func(t *testing.T) {
			s := startServer(t, b.env(t))
			ws := str(items(t, s.call(t, "GET", "/v1/workspaces", bootstrapToken, nil).must(t, 200).data, "workspaces")[0], "id")
			created := s.call(t, "POST", "/api/workflows", bootstrapToken, map[string]any{"workspace_id": ws, "name": "greet",
				"definition": json.RawMessage(greetOrFail)}).must(t, 201)
			id := str(created.data, "id")
			before := time.Now().Add(-time.Second).Unix()
			s.call(t, "POST", "/api/workflows/"+id+"/test_run", bootstrapToken, map[string]any{"parameters": map[string]any{"name": "draft"}}).must(t, 200)
			s.call(t, "POST", "/api/workflows/"+id+"/publish", bootstrapToken, nil).must(t, 201)
			var ids []string
			for _, name := range []string{"ada", "bo"} {
				run := s.call(t, "POST", "/v1/workflow/run", bootstrapToken, map[string]any{"workflow_id": id,
					"parameters": map[string]any{"name": name}, "ext": map[string]string{"user_id": "u1"}}).must(t, 200)
				ids = append(ids, str(run.raw, "execute_id"))
			}
			failed := s.call(t, "POST", "/v1/workflow/run", bootstrapToken, map[string]any{"workflow_id": id,
				"parameters": map[string]any{"name": "fail"}, "ext": map[string]string{"user_id": "u2"}})
			failed.fails(t, 400, 4000, "boom")
			ids = append(ids, str(failed.raw, "execute_id"))

			runs := func(query string) ([]map[string]any, float64) {
				t.Helper()
				r := s.call(t, "GET", "/api/workflows/"+id+"/runs"+query, bootstrapToken, nil).must(t, 200)
				total, _ := r.data["total"].(float64)
				return items(t, r.data, "items"), total
			}
			all, total := runs("")
			if total != 4 || len(all) != 4 || str(all[0], "execute_id") != ids[2] || str(all[1], "execute_id") != ids[1] ||
				str(all[2], "execute_id") != ids[0] || str(all[3], "mode") != "test" {
				t.Fatalf("all runs (%v) = %v, want the failed, the two API runs, then the test run", total, all)
			}
			if r := all[1]; str(r, "status") != "success" || str(r, "user_id") != "u1" || str(r, "mode") != "sync" ||
				r["version"] != float64(1) || r["input"].(map[string]any)["name"] != "bo" || r["finished_at"].(float64) < float64(before) {
				t.Errorf("a successful run = %v", r)
			}
			checkRunFilters(t, runs, ids, before)
			checkRunsRefused(t, s, id)
		})
	}
}

// checkRunFilters checks each filter of the runs list, and paging.
func checkRunFilters(t *testing.T, runs func(string) ([]map[string]any, float64), ids []string, before int64) {
	t.Helper()
	if got, n := runs("?status=fail"); n != 1 || str(got[0], "execute_id") != ids[2] || !strings.Contains(str(got[0], "error"), "boom") {
		t.Errorf("status=fail: %v %v", n, got)
	}
	if got, n := runs("?mode=test"); n != 1 || got[0]["version"] != float64(0) || str(got[0], "status") != "success" {
		t.Errorf("mode=test: %v %v", n, got)
	}
	if _, n := runs("?user_id=u1&status=success&mode=sync"); n != 2 {
		t.Errorf("user_id=u1 success sync: %v runs, want 2", n)
	}
	page2, n := runs("?page_size=3&page_num=2")
	if n != 4 || len(page2) != 1 || str(page2[0], "mode") != "test" {
		t.Errorf("page 2 of 3 = %v (total %v), want the test run", page2, n)
	}
	later := strconv.FormatInt(time.Now().Add(time.Hour).Unix(), 10)
	if got, n := runs("?from=" + later); n != 0 || len(got) != 0 {
		t.Errorf("from an hour ahead: %v", got)
	}
	if _, n := runs("?from=" + strconv.FormatInt(before, 10) + "&to=" + later); n != 4 {
		t.Errorf("from before to later: %v runs, want 4", n)
	}
	if _, n := runs("?to=" + strconv.FormatInt(before, 10)); n != 0 {
		t.Errorf("to before the first run: %v runs, want 0", n)
	}
}

// checkRunsRefused checks bad filters and another workspace's member.
func checkRunsRefused(t *testing.T, s *testServer, id string) {
	t.Helper()
	base := "/api/workflows/" + id + "/runs"
	s.call(t, "GET", base+"?status=done", bootstrapToken, nil).fails(t, 400, 4000, "status: must be one of running, success")
	s.call(t, "GET", base+"?mode=batch", bootstrapToken, nil).fails(t, 400, 4000, "mode: must be one of sync")
	s.call(t, "GET", base+"?from=yesterday", bootstrapToken, nil).fails(t, 400, 4000, "from: must be a time in Unix seconds")
	s.call(t, "GET", base+"?from=200&to=100", bootstrapToken, nil).fails(t, 400, 4000, "to: must be after from")
	s.call(t, "GET", base+"?page_size=500", bootstrapToken, nil).fails(t, 400, 4000, "page_size")
	s.call(t, "GET", "/api/workflows/123/runs", bootstrapToken, nil).fails(t, 404, 4200, "workflow 123 not found")
	s.call(t, "POST", "/api/admin/users", bootstrapToken, map[string]any{"email": "eve@example.com", "name": "Eve", "password": "eve-password-1"}).must(t, 201)
	eve := str(s.call(t, "POST", "/api/auth/login", "", map[string]any{"email": "eve@example.com", "password": "eve-password-1"}).must(t, 200).data, "token")
	s.call(t, "GET", base, eve, nil).fails(t, 404, 4200, "workflow "+id+" not found")
	s.call(t, "GET", base, "", nil).fails(t, 401, 4100, "")
}
