package main

import (
	"bytes"
	"fmt"
	"io"
	"strings"
	"testing"
	"time"

	"github.com/pergola-ai/pergola/infra/fakellm"
)

// slowEnv bounds headers to 1s, whole requests to 4s and idle keep-alive
// connections to 1s, so that the slow-client tests run quickly.
var slowEnv = map[string]string{
	"PERGOLA_READ_HEADER_TIMEOUT": "1s", "PERGOLA_READ_TIMEOUT": "4s", "PERGOLA_IDLE_TIMEOUT": "1s",
	"PERGOLA_MAX_HEADER_BYTES": "8192",
}

// closeBound is how long past its timeout a connection may stay open: the
// assertion is that the server bounds it, not how fast it is.
const closeBound = 5 * time.Second

// trickle writes s one byte every d until done is closed or the
// connection fails.
func trickle(c *rawConn, s string, d time.Duration, done <-chan struct{}) {
	for i := 0; ; i = (i + 1) % len(s) {
		select {
		case <-done:
			return
		case <-time.After(d):
		}
		if _, err := c.Write([]byte{s[i]}); err != nil {
			return
		}
	}
}

// TestSlowClientsAreCut shows a client that sends half a header and
// trickles bytes (slowloris), one that sends nothing, one that does so on
// a kept-alive connection, and an idle keep-alive connection are all
// closed within the bound, while a normal request still works.
func TestSlowClientsAreCut(t *testing.T) {
	s := startServer(t, slowEnv)
	cases := map[string]func(c *rawConn){
		"half a header, trickling": func(c *rawConn) { _, _ = io.WriteString(c, "GET /healthz HTTP/1.1\r\nHost: x\r\n") },
		"nothing at all":           nil,
		"second request on a kept-alive connection": func(c *rawConn) {
			_, _ = io.WriteString(c, "GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n")
			if resp := c.response(t); resp.StatusCode != 200 {
				t.Fatalf("first request: %d", resp.StatusCode)
			}
			_, _ = io.WriteString(c, "GET /healthz HTTP/1.1\r\nHost: x\r\n")
		},
	}
	for name, start := range cases {
		t.Run(name, func(t *testing.T) {
			c := s.dial(t)
			done := make(chan struct{})
			defer close(done)
			if start != nil {
				start(c)
				go trickle(c, "X-Slow: a\r\n", 150*time.Millisecond, done)
			}
			s.call(t, "GET", "/api/me", bootstrapToken, nil).must(t, 200)
			if !c.closedWithin(closeBound) {
				t.Fatalf("the connection is still open after %s", closeBound)
			}
		})
	}
	t.Run("idle keep-alive", func(t *testing.T) {
		c := s.dial(t)
		_, _ = io.WriteString(c, "GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n")
		resp := c.response(t)
		_, _ = io.Copy(io.Discard, resp.Body)
		if !c.closedWithin(closeBound) {
			t.Fatalf("the idle connection is still open after %s", closeBound)
		}
	})
}

// TestOversizedHeaderRefused shows a header over PERGOLA_MAX_HEADER_BYTES
// gets 431 with the JSON envelope and the connection is closed; a request
// hertz cannot parse gets a JSON 400.
func TestOversizedHeaderRefused(t *testing.T) {
	s := startServer(t, slowEnv)
	c := s.dial(t)
	fmt.Fprintf(c, "GET /healthz HTTP/1.1\r\nHost: x\r\nX-Big: %s\r\n\r\n", strings.Repeat("a", 16<<10))
	decodeReply(t, c.response(t)).fails(t, 431, 4000, "PERGOLA_MAX_HEADER_BYTES")
	if !c.closedWithin(closeBound) {
		t.Fatal("the connection stayed open after the 431")
	}
	c = s.dial(t)
	_, _ = io.WriteString(c, "GET /healthz HTTP/1.1\r\nHost: x\r\nContent-Length: many\r\n\r\n")
	decodeReply(t, c.response(t)).fails(t, 400, 4000, "not valid HTTP/1.1")
}

// TestSlowUploadsAndStreamsAreNotCut shows the header timeout does not cut
// a body uploaded more slowly than it (on a kept-alive connection), nor a streamed chat answer that
// lasts longer than the header, idle and whole-request timeouts.
func TestSlowUploadsAndStreamsAreNotCut(t *testing.T) {
	s := startServer(t, slowEnv)
	body := `{"name":"uploaded slowly, in a bit more than two seconds"}`
	c := s.dial(t)
	_, _ = io.WriteString(c, "GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n") // the upload is the connection's second request
	resp := c.response(t)
	_, _ = io.Copy(io.Discard, resp.Body)
	fmt.Fprintf(c, "POST /api/workspaces HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer %s\r\nContent-Type: application/json\r\nContent-Length: %d\r\n\r\n",
		bootstrapToken, len(body))
	for i := range body {
		time.Sleep(40 * time.Millisecond)
		if _, err := c.Write([]byte{body[i]}); err != nil {
			t.Fatalf("the upload was cut after %d bytes: %v", i, err)
		}
	}
	decodeReply(t, c.response(t)).must(t, 201)

	llm := fakellm.New(fakellm.WithChunkChars(2), fakellm.WithTokenLatency(200*time.Millisecond))
	url, err := llm.Listen("127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = llm.Close() })
	s.call(t, "POST", "/api/admin/models", bootstrapToken, map[string]any{
		"id": "slow", "provider": "openai", "base_url": url, "api_key": "k", "model": "fake"}).must(t, 201)
	chat := &chatSetup{s: s, llm: llm, ws: str(items(t, s.call(t, "GET", "/v1/workspaces", bootstrapToken, nil).must(t, 200).data, "workspaces")[0], "id")}
	bot := chat.bot(t, map[string]any{"name": "Slow", "model": map[string]any{"model_id": "slow"}})
	text := strings.Repeat("ab", 30) // 30 chunks, 200ms apart: 6s
	llm.Enqueue(fakellm.Text(text))
	start := time.Now()
	events := s.stream(t, "/v3/chat", bootstrapToken, map[string]any{"bot_id": bot, "user_id": "u1",
		"additional_messages": userMessage("talk slowly"), "stream": true})
	var got strings.Builder
	for _, e := range events {
		if e.name == "conversation.message.delta" {
			got.WriteString(str(e.obj(t), "content"))
		}
	}
	if got.String() != text || names(events)[len(events)-1] != "done" {
		t.Fatalf("after %s the stream ended with %v and %q, want all of %q", time.Since(start), names(events)[len(events)-1], got.String(), text)
	}
}

// TestOversizedBodiesGetTheEnvelope shows bodies over PERGOLA_MAX_BODY_BYTES
// get 413 with the JSON envelope (code 4001) naming the limit, whether
// their length is declared or they are chunked, just over the limit or far
// past it (where hertz itself refuses them), and nothing is created.
func TestOversizedBodiesGetTheEnvelope(t *testing.T) {
	s := startServer(t, nil)
	const limit = 8 << 20
	big := func(n int) io.Reader {
		return io.MultiReader(strings.NewReader(`{"name":"`), bytes.NewReader(bytes.Repeat([]byte("a"), n)), strings.NewReader(`"}`))
	}
	auth := map[string]string{"Authorization": "Bearer " + bootstrapToken, "Content-Type": "application/json"}
	for _, chunked := range []bool{false, true} {
		r := s.send(t, rawRequest{method: "POST", path: "/api/workspaces", header: auth, body: big(limit + 1<<19), chunked: chunked})
		r.fails(t, 413, 4001, fmt.Sprintf("%d bytes (PERGOLA_MAX_BODY_BYTES)", limit))
	}
	// Far past the limit: a declared length hertz refuses before reading.
	c := s.dial(t)
	fmt.Fprintf(c, "POST /api/workspaces HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer %s\r\nContent-Type: application/json\r\nContent-Length: %d\r\n\r\n",
		bootstrapToken, 256<<20)
	decodeReply(t, c.response(t)).fails(t, 413, 4001, fmt.Sprintf("%d bytes (PERGOLA_MAX_BODY_BYTES)", limit))
	// Far past the limit, chunked: hertz reads until its own limit (the
	// largest of this one, the upload limit PERGOLA_FILES_MAX_BYTES and the
	// base64 of PERGOLA_KNOWLEDGE_MAX_FILE_BYTES on Coze's document create),
	// then refuses.
	c = s.dial(t)
	fmt.Fprintf(c, "POST /api/workspaces HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer %s\r\nContent-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\n", bootstrapToken)
	done := make(chan struct{})
	go func() {
		defer close(done)
		chunk := fmt.Sprintf("%x\r\n%s\r\n", 1<<20, strings.Repeat("a", 1<<20))
		for i := 0; i < 160; i++ {
			if _, err := io.WriteString(c, chunk); err != nil {
				return
			}
		}
	}()
	decodeReply(t, c.response(t)).fails(t, 413, 4001, fmt.Sprintf("%d bytes (PERGOLA_MAX_BODY_BYTES)", limit))
	_ = c.Close()
	<-done
	if n := len(s.workspaceNames(t, bootstrapToken)); n != 1 {
		t.Fatalf("%d workspaces, want only the personal one", n)
	}
}
