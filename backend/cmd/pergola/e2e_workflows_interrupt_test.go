package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"
)

// askingWorkflow asks a question, then for a form, then answers with both.
const askingWorkflow = `{
  "nodes": [
    {"id": "start", "type": "start", "outputs": [{"name": "name", "type": "string", "required": true}]},
    {"id": "ask", "type": "question", "title": "Where", "config": {"question": "Hi {{n}}, where do you live?"},
     "inputs": {"n": {"ref": {"node": "start", "path": "name"}}}},
    {"id": "form", "type": "input", "title": "About you", "config": {"prompt": "Tell us more"},
     "outputs": [{"name": "age", "type": "integer", "required": true}]},
    {"id": "end", "type": "end", "config": {"mode": "text", "template": "{{n}} lives in {{city}}, aged {{age}}"},
     "inputs": {"n": {"ref": {"node": "start", "path": "name"}}, "city": {"ref": {"node": "ask", "path": "answer"}},
                "age": {"ref": {"node": "form", "path": "age"}}}}
  ],
  "edges": [{"from": "start", "to": "ask"}, {"from": "ask", "to": "form"}, {"from": "form", "to": "end"}]
}`

// TestWorkflowInterruptResumesOnAnotherProcess runs a workflow that asks
// twice: stream_run ends with Interrupt then Done; the answer is given by
// stream_resume on a second server sharing the database and Redis (on
// SQLite, the same server), and the second answer on the first one; an
// event answered twice is refused with 409; the run history shows the
// run interrupted, then succeeded. A synchronous run answers
// interrupt_data.
func TestWorkflowInterruptResumesOnAnotherProcess(t *testing.T) {
	for _, b := range backends() {
		t.Run(b.name, func(t *testing.T) {
			env := b.env(t)
			s1 := startServer(t, env)
			s2 := s1
			if b.name != "sqlite" {
				s2 = startServer(t, env)
			}
			ws := str(items(t, s1.call(t, "GET", "/v1/workspaces", bootstrapToken, nil).must(t, 200).data, "workspaces")[0], "id")
			id := str(s1.call(t, "POST", "/api/workflows", bootstrapToken, map[string]any{"workspace_id": ws, "name": "asking",
				"definition": json.RawMessage(askingWorkflow)}).must(t, 201).data, "id")
			s1.call(t, "POST", "/api/workflows/"+id+"/publish", bootstrapToken, nil).must(t, 201)

			events := s1.postStream(t, "/v1/workflow/stream_run", map[string]any{"workflow_id": id, "parameters": map[string]any{"name": "Ann"}})
			first := wantInterrupt(t, events, 2, "Where")
			exec := str(events[len(events)-1].data, "execute_id")
			if h := s2.runHistory(t, id, exec); str(h, "execute_status") != "Interrupted" || nodeStatuses(t, h)["ask"] != "interrupted" {
				t.Fatalf("history of the interrupted run: %v", h)
			}

			s2.call(t, "POST", "/v1/workflow/stream_resume", bootstrapToken, map[string]any{"workflow_id": id, "event_id": first,
				"resume_data": "", "interrupt_type": 2}).fails(t, 400, 4000, "resume_data: is required")
			events = s2.postStream(t, "/v1/workflow/stream_resume", map[string]any{"workflow_id": id, "event_id": first,
				"resume_data": "Paris", "interrupt_type": 2})
			second := wantInterrupt(t, events, 5, "About you")
			s2.call(t, "POST", "/v1/workflow/stream_resume", bootstrapToken, map[string]any{"workflow_id": id, "event_id": first,
				"resume_data": "Lyon", "interrupt_type": 2}).fails(t, 409, 4300, "answered already")

			events = s1.postStream(t, "/v1/workflow/stream_resume", map[string]any{"workflow_id": id, "event_id": second,
				"resume_data": `{"age": 41}`, "interrupt_type": 5})
			if text, _ := messageText(events, "end"); text != "Ann lives in Paris, aged 41" || events[len(events)-1].name != "Done" {
				t.Fatalf("resumed stream: %q, events %v", text, events)
			}
			h := s1.runHistory(t, id, exec)
			st := nodeStatuses(t, h)
			if str(h, "execute_status") != "Success" || st["ask"] != "success" || st["form"] != "success" || st["end"] != "success" {
				t.Fatalf("history of the resumed run: %s %v", str(h, "execute_status"), st)
			}
			s1.call(t, "POST", "/v1/workflow/stream_resume", bootstrapToken, map[string]any{"workflow_id": id, "event_id": second,
				"resume_data": `{"age": 41}`}).fails(t, 409, 4300, "answered already")

			run := s2.call(t, "POST", "/v1/workflow/run", bootstrapToken, map[string]any{"workflow_id": id,
				"parameters": map[string]any{"name": "Bo"}}).must(t, 200)
			in, _ := run.raw["interrupt_data"].(map[string]any)
			if in == nil || str(in, "question") != "Hi Bo, where do you live?" || !strings.HasPrefix(str(in, "event_id"), str(run.raw, "execute_id")+"/") {
				t.Fatalf("a synchronous run that asks answers %v", run.raw)
			}
			cancelled := s1.call(t, "POST", "/api/workflows/"+id+"/runs/"+str(run.raw, "execute_id")+"/cancel", bootstrapToken, nil).must(t, 200)
			if str(cancelled.data, "execute_status") != "Cancel" {
				t.Fatalf("cancel answers %v", cancelled.data)
			}
			if h := s2.runHistory(t, id, str(run.raw, "execute_id")); str(h, "execute_status") != "Cancel" {
				t.Fatalf("a cancelled interrupted run is %s", str(h, "execute_status"))
			}
			s2.call(t, "POST", "/v1/workflow/stream_resume", bootstrapToken, map[string]any{"workflow_id": id,
				"event_id": str(in, "event_id"), "resume_data": "Rome"}).fails(t, 409, 4300, "no longer waits")
		})
	}
}

// wantInterrupt checks that a stream ends with Interrupt of kind typ at a
// node titled title, then Done, and returns the event id.
func wantInterrupt(t *testing.T, events []wfEvent, typ float64, title string) string {
	t.Helper()
	n := len(events)
	if n < 2 || events[n-2].name != "Interrupt" || events[n-1].name != "Done" {
		t.Fatalf("stream does not end with Interrupt, Done: %v", events)
	}
	e := events[n-2].data
	in, _ := e["interrupt_data"].(map[string]any)
	if in == nil || in["type"] != typ || str(in, "event_id") == "" || e["node_title"] != title {
		t.Fatalf("Interrupt = %v, want type %v at %q", e, typ, title)
	}
	return str(in, "event_id")
}

// postStream posts body to a workflow stream route and reads the events.
func (s *testServer) postStream(t *testing.T, path string, body any) []wfEvent {
	t.Helper()
	b, _ := json.Marshal(body)
	req, _ := http.NewRequest("POST", s.base+path, bytes.NewReader(b))
	req.Header.Set("Authorization", "Bearer "+bootstrapToken)
	req.Header.Set("Content-Type", "application/json")
	resp, err := (&http.Client{Timeout: 60 * time.Second}).Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	if !strings.HasPrefix(resp.Header.Get("Content-Type"), "text/event-stream") {
		raw, _ := io.ReadAll(resp.Body)
		t.Fatalf("%s: %d: %s", path, resp.StatusCode, raw)
	}
	var events []wfEvent
	var cur wfEvent
	sc := bufio.NewScanner(resp.Body)
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	for sc.Scan() {
		line := sc.Text()
		switch {
		case strings.HasPrefix(line, "event: "):
			cur.name = strings.TrimPrefix(line, "event: ")
		case strings.HasPrefix(line, "data: "):
			if err := json.Unmarshal([]byte(strings.TrimPrefix(line, "data: ")), &cur.data); err != nil {
				t.Fatalf("event %s: %v", cur.name, err)
			}
		case line == "" && cur.name != "":
			cur.id = len(events)
			events = append(events, cur)
			cur = wfEvent{}
		}
	}
	return events
}
