package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"io"
	"net/http"
	"strconv"
	"strings"
	"testing"
	"time"
)

// wfEvent is one event of a workflow stream.
type wfEvent struct {
	id   int
	name string
	data map[string]any
}

// workflowStream posts body to /v1/workflow/stream_run and reads the whole
// stream, checking Coze's framing: id:, event: and data: lines in that
// order, ids counting up from 0, one blank line after each event.
func (s *testServer) workflowStream(t *testing.T, body any) []wfEvent {
	t.Helper()
	b, _ := json.Marshal(body)
	req, _ := http.NewRequest("POST", s.base+"/v1/workflow/stream_run", bytes.NewReader(b))
	req.Header.Set("Authorization", "Bearer "+bootstrapToken)
	req.Header.Set("Content-Type", "application/json")
	resp, err := (&http.Client{Timeout: 60 * time.Second}).Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	if !strings.HasPrefix(resp.Header.Get("Content-Type"), "text/event-stream") {
		raw, _ := io.ReadAll(resp.Body)
		t.Fatalf("stream_run: %d %s: %s", resp.StatusCode, resp.Header.Get("Content-Type"), raw)
	}
	var events []wfEvent
	sc := bufio.NewScanner(resp.Body)
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	next := func(prefix string) string {
		t.Helper()
		if !sc.Scan() {
			t.Fatalf("the stream ended where a %q line was due", prefix)
		}
		line, ok := strings.CutPrefix(sc.Text(), prefix)
		if !ok {
			t.Fatalf("line %q, want one starting %q", sc.Text(), prefix)
		}
		return line
	}
	for sc.Scan() {
		idText, ok := strings.CutPrefix(sc.Text(), "id: ")
		if !ok {
			t.Fatalf("line %q, want an id: line", sc.Text())
		}
		e := wfEvent{name: next("event: ")}
		e.id, _ = strconv.Atoi(idText)
		if err := json.Unmarshal([]byte(next("data: ")), &e.data); err != nil {
			t.Fatalf("event %s: data is not a JSON object: %v", e.name, err)
		}
		if next("") != "" || e.id != len(events) {
			t.Fatalf("event %d %s is not framed as Coze's workflow stream", e.id, e.name)
		}
		events = append(events, e)
	}
	return events
}

// messageText joins the contents of a node's Message events.
func messageText(events []wfEvent, nodeID string) (string, int) {
	var b strings.Builder
	n := 0
	for _, e := range events {
		if e.name == "Message" && e.data["node_id"] == nodeID {
			b.WriteString(e.data["content"].(string))
			n++
		}
	}
	return b.String(), n
}

// runHistory reads a run's history and returns its one entry.
func (s *testServer) runHistory(t *testing.T, workflowID, executeID string) map[string]any {
	t.Helper()
	r := s.call(t, "GET", "/v1/workflows/"+workflowID+"/run_histories/"+executeID, bootstrapToken, nil).must(t, 200)
	list, ok := r.raw["data"].([]any)
	if !ok || len(list) != 1 {
		t.Fatalf("run history data = %v, want a one-element array", r.raw["data"])
	}
	return list[0].(map[string]any)
}

// nodeStatuses returns node_execute_status's keys with their status.
func nodeStatuses(t *testing.T, hist map[string]any) map[string]string {
	t.Helper()
	out := map[string]string{}
	states, _ := hist["node_execute_status"].(map[string]any)
	for k, v := range states {
		out[k] = str(v.(map[string]any), "status")
	}
	return out
}
