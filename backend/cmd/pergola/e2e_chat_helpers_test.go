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

	"github.com/pergola-ai/pergola/infra/fakellm"
)

// sseEvent is one event of a stream: its name and its data line.
type sseEvent struct {
	name string
	data string
}

func (e sseEvent) obj(t *testing.T) map[string]any {
	t.Helper()
	var m map[string]any
	if err := json.Unmarshal([]byte(e.data), &m); err != nil {
		t.Fatalf("event %s: data is not a JSON object: %s", e.name, e.data)
	}
	return m
}

// stream posts body and reads the whole SSE answer, which must end (the
// server closes it after the last event).
func (s *testServer) stream(t *testing.T, path, token string, body any) []sseEvent {
	t.Helper()
	b, _ := json.Marshal(body)
	req, _ := http.NewRequest("POST", s.base+path, bytes.NewReader(b))
	req.Header.Set("Authorization", "Bearer "+token)
	req.Header.Set("Content-Type", "application/json")
	client := &http.Client{Timeout: 30 * time.Second}
	resp, err := client.Do(req)
	if err != nil {
		t.Fatalf("POST %s: %v", path, err)
	}
	defer resp.Body.Close()
	if !strings.HasPrefix(resp.Header.Get("Content-Type"), "text/event-stream") {
		raw, _ := io.ReadAll(resp.Body)
		t.Fatalf("POST %s: %d %s: %s", path, resp.StatusCode, resp.Header.Get("Content-Type"), raw)
	}
	var events []sseEvent
	sc := bufio.NewScanner(resp.Body)
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	var cur sseEvent
	for sc.Scan() {
		line := sc.Text()
		switch {
		case strings.HasPrefix(line, "event: "):
			cur.name = strings.TrimPrefix(line, "event: ")
		case strings.HasPrefix(line, "data: "):
			if cur.data != "" {
				t.Fatalf("event %s has two data lines", cur.name)
			}
			cur.data = strings.TrimPrefix(line, "data: ")
		case line == "":
			events = append(events, cur)
			cur = sseEvent{}
		default:
			t.Fatalf("unexpected line in the stream: %q", line)
		}
	}
	if err := sc.Err(); err != nil {
		t.Fatalf("reading the stream: %v", err)
	}
	return events
}

func names(events []sseEvent) []string {
	out := make([]string, len(events))
	for i, e := range events {
		out[i] = e.name
	}
	return out
}

// chatSetup is a server with the fake model registered.
type chatSetup struct {
	s   *testServer
	llm *fakellm.Server
	ws  string
	// imported counts the canvases imported, to name them.
	imported int
}

func newChatSetup(t *testing.T, b backend) *chatSetup {
	t.Helper()
	llm := fakellm.New(fakellm.WithChunkChars(4))
	url, err := llm.Listen("127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = llm.Close() })
	s := startServer(t, b.env(t))
	s.call(t, "POST", "/api/admin/models", bootstrapToken, map[string]any{
		"id": "fake", "provider": "openai", "base_url": url, "api_key": "k", "model": "fake",
		"capabilities": map[string]any{"tools": true},
	}).must(t, 201)
	ws := s.call(t, "GET", "/v1/workspaces", bootstrapToken, nil).must(t, 200)
	return &chatSetup{s: s, llm: llm, ws: str(items(t, ws.data, "workspaces")[0], "id")}
}

// bot creates and publishes a bot with the given console config.
func (c *chatSetup) bot(t *testing.T, cfg map[string]any) string {
	t.Helper()
	cfg["workspace_id"] = c.ws
	created := c.s.call(t, "POST", "/api/bots", bootstrapToken, cfg).must(t, 201)
	id := str(created.data, "id")
	c.s.call(t, "POST", "/api/bots/"+id+"/publish", bootstrapToken, nil).must(t, 201)
	return id
}

func userMessage(text string) []map[string]any {
	return []map[string]any{{"role": "user", "content": text, "content_type": "text"}}
}
