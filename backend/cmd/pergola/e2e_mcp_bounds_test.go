package main

import (
	"encoding/json"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"
)

// TestMCPServerBounds: a token cannot pile up sessions (past 100 its least
// recently used one closes, while another token's stays open), and a
// JSON-RPC batch of an old protocol version cannot run several tools at
// the cost of one request, a session has few streams at a time, and a
// list's cursor that the server never gave is invalid params.
func TestMCPServerBounds(t *testing.T) {
	for _, b := range backends() {
		t.Run(b.name, func(t *testing.T) {
			c := newChatSetup(t, b)
			c.bot(t, map[string]any{"name": "Bounded", "model": map[string]any{"model_id": "fake"}})
			other := str(c.s.call(t, "POST", "/api/tokens", bootstrapToken, map[string]any{"name": "other"}).must(t, 201).data, "token")
			theirs, err := c.s.connectMCP(t, other, nil)
			if err != nil {
				t.Fatal(err)
			}
			first := mcpInitialize(t, c.s, bootstrapToken, "2025-06-18")
			second := mcpInitialize(t, c.s, bootstrapToken, "2025-06-18")
			ping := map[string]any{"jsonrpc": "2.0", "id": 9, "method": "ping"}
			mcpPost(t, c.s, bootstrapToken, first, "2025-06-18", ping) // second is now the least recently used
			for range 99 {
				mcpInitialize(t, c.s, bootstrapToken, "2025-06-18")
			}
			if status, body := mcpPost(t, c.s, bootstrapToken, second, "2025-06-18", ping); status != http.StatusNotFound {
				t.Fatalf("the least recently used of 101 sessions: %d %s, want 404", status, body)
			}
			if status, body := mcpPost(t, c.s, bootstrapToken, first, "2025-06-18", ping); status != http.StatusOK {
				t.Fatalf("a recently used session: %d %s", status, body)
			}
			theirs.tools(t)

			mcpFewStreams(t, c.s, mcpInitialize(t, c.s, bootstrapToken, "2025-06-18"))

			session := mcpInitialize(t, c.s, bootstrapToken, "2025-03-26")
			call := func(id int) map[string]any {
				return map[string]any{"jsonrpc": "2.0", "id": id, "method": "tools/call",
					"params": map[string]any{"name": "chat_bounded", "arguments": map[string]any{"message": "hi"}}}
			}
			pings := make([]any, 11)
			for i := range pings {
				pings[i] = map[string]any{"jsonrpc": "2.0", "id": 100 + i, "method": "ping"}
			}
			for _, batch := range [][]any{{call(1), call(2)}, pings} {
				status, body := mcpPost(t, c.s, bootstrapToken, session, "2025-03-26", batch)
				if status != http.StatusBadRequest || !strings.Contains(body, "at most 10 messages and 1 tools/call") {
					t.Fatalf("a batch of %d: %d %s", len(batch), status, body)
				}
			}
			if status, body := mcpPost(t, c.s, bootstrapToken, session, "2025-03-26", []any{call(3), ping}); status != http.StatusOK ||
				!strings.Contains(body, "echo: hi") {
				t.Fatalf("a batch of a call and a ping: %d %s", status, body)
			}
			mcpCursors(t, c.s, mcpInitialize(t, c.s, bootstrapToken, "2025-06-18"))
		})
	}
}

// mcpInitialize opens a session with a raw initialize request and returns
// its id.
func mcpInitialize(t *testing.T, s *testServer, token, version string) string {
	t.Helper()
	init := map[string]any{"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": map[string]any{
		"protocolVersion": version, "capabilities": map[string]any{}, "clientInfo": map[string]any{"name": "raw", "version": "1"}}}
	resp := mcpSend(t, s, token, "", "", init)
	defer resp.Body.Close()
	_, _ = io.Copy(io.Discard, resp.Body)
	id := resp.Header.Get("Mcp-Session-Id")
	if resp.StatusCode != http.StatusOK || id == "" {
		t.Fatalf("initialize: %d, session %q", resp.StatusCode, id)
	}
	mcpPost(t, s, token, id, version, map[string]any{"jsonrpc": "2.0", "method": "notifications/initialized"})
	return id
}

// mcpPost sends msg on session and returns the status and body.
func mcpPost(t *testing.T, s *testServer, token, session, version string, msg any) (int, string) {
	t.Helper()
	resp := mcpSend(t, s, token, session, version, msg)
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, string(b)
}

func mcpSend(t *testing.T, s *testServer, token, session, version string, msg any) *http.Response {
	t.Helper()
	b, _ := json.Marshal(msg)
	req, _ := http.NewRequest("POST", s.base+"/mcp", strings.NewReader(string(b)))
	req.Header.Set("Authorization", "Bearer "+token)
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	if session != "" {
		req.Header.Set("Mcp-Session-Id", session)
		req.Header.Set("Mcp-Protocol-Version", version)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	return resp
}

// mcpFewStreams: a session's streams (GET) are bounded (one with the
// SDK's sessions, four per process when sessions are shared): one more is
// refused with 409, and opens once the client closed the others.
func mcpFewStreams(t *testing.T, s *testServer, session string) {
	t.Helper()
	get := func() *http.Response {
		req, _ := http.NewRequest("GET", s.base+"/mcp", nil)
		req.Header.Set("Authorization", "Bearer "+bootstrapToken)
		req.Header.Set("Accept", "text/event-stream")
		req.Header.Set("Mcp-Session-Id", session)
		req.Header.Set("Mcp-Protocol-Version", "2025-06-18")
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		return resp
	}
	var open []*http.Response
	for len(open) < 5 {
		resp := get()
		if resp.StatusCode == http.StatusConflict {
			resp.Body.Close()
			break
		}
		if resp.StatusCode != http.StatusOK {
			t.Fatalf("stream %d: %d", len(open)+1, resp.StatusCode)
		}
		open = append(open, resp)
	}
	if len(open) != 1 && len(open) != 4 {
		t.Fatalf("%d streams of one session open at once, want 1 or 4", len(open))
	}
	for _, resp := range open {
		resp.Body.Close()
	}
	deadline := time.Now().Add(5 * time.Second)
	for {
		again := get()
		again.Body.Close()
		if again.StatusCode == http.StatusOK {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("a stream after the others closed: %d", again.StatusCode)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// mcpCursors: every list is one page, so a cursor is an invalid params
// error (-32602) naming it, and a list without params answers.
func mcpCursors(t *testing.T, s *testServer, session string) {
	t.Helper()
	for _, method := range []string{"tools/list", "resources/list", "resources/templates/list", "prompts/list"} {
		_, body := mcpPost(t, s, bootstrapToken, session, "2025-06-18", map[string]any{"jsonrpc": "2.0", "id": 1, "method": method,
			"params": map[string]any{"cursor": "bogus"}})
		if !strings.Contains(body, `"code":-32602`) || !strings.Contains(body, "invalid cursor") {
			t.Fatalf("%s with a cursor: %s", method, body)
		}
		if status, body := mcpPost(t, s, bootstrapToken, session, "2025-06-18", map[string]any{"jsonrpc": "2.0", "id": 2, "method": method}); status != http.StatusOK || !strings.Contains(body, `"result"`) {
			t.Fatalf("%s without params: %d %s", method, status, body)
		}
	}
}
