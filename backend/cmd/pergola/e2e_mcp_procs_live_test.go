package main

import (
	"bytes"
	"context"
	"io"
	"net/http"
	"net/url"
	"regexp"
	"sync/atomic"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// routed sends each request of an MCP client to the process to picks for
// it, as a load balancer without sticky sessions may; it counts what
// went to each process and tells when a GET stream was answered.
type routed struct {
	token    string
	to       func(r *http.Request, body []byte) *url.URL
	streamed chan int // a GET's status, once answered
	sent     map[string]*atomic.Int64
}

func newRouted(token string, to func(r *http.Request, body []byte) *url.URL, servers ...*testServer) *routed {
	rt := &routed{token: token, to: to, streamed: make(chan int, 8), sent: map[string]*atomic.Int64{}}
	for _, s := range servers {
		u := mustURL(s.base)
		rt.sent[u.Host] = &atomic.Int64{}
	}
	return rt
}

func (rt *routed) RoundTrip(r *http.Request) (*http.Response, error) {
	var body []byte
	if r.Body != nil {
		body, _ = io.ReadAll(r.Body)
		_ = r.Body.Close()
	}
	r = r.Clone(r.Context())
	r.Body = io.NopCloser(bytes.NewReader(body))
	to := rt.to(r, body)
	r.URL.Scheme, r.URL.Host, r.Host = to.Scheme, to.Host, to.Host
	r.Header.Set("Authorization", "Bearer "+rt.token)
	rt.sent[to.Host].Add(1)
	resp, err := http.DefaultTransport.RoundTrip(r)
	if err == nil && r.Method == http.MethodGet {
		rt.streamed <- resp.StatusCode
	}
	return resp, err
}

func mustURL(s string) *url.URL {
	u, err := url.Parse(s)
	if err != nil {
		panic(err)
	}
	return u
}

// mcpStreamElsewhere: on MariaDB+Redis, a session opened on a has its
// stream (GET) on other, and hears there of the list changes made through
// a's API after it listed on a; deleting the session on a ends its
// stream on other.
func mcpStreamElsewhere(t *testing.T, c *chatSetup, other *testServer) {
	t.Helper()
	a := c.s
	toA, toOther := mustURL(a.base), mustURL(other.base)
	rt := newRouted(bootstrapToken, func(r *http.Request, _ []byte) *url.URL {
		if r.Method == http.MethodGet {
			return toOther
		}
		return toA
	}, a, other)
	cl, err := a.connectMCPVia(t, rt, nil)
	if err != nil {
		t.Fatal(err)
	}
	select {
	case code := <-rt.streamed:
		if code != http.StatusOK {
			t.Fatalf("the session's stream on the other process: %d, want 200", code)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("the client opened no stream")
	}
	cl.tools(t)
	if _, err := cl.session.ListPrompts(context.Background(), nil); err != nil {
		t.Fatal(err)
	}
	bot := str(a.call(t, "POST", "/api/bots", bootstrapToken, map[string]any{"workspace_id": c.ws, "name": "Roamer",
		"prompt": "Be brief.", "model": map[string]any{"model_id": "fake"}}).must(t, 201).data, "id")
	a.call(t, "POST", "/api/bots/"+bot+"/publish", bootstrapToken, nil).must(t, 201)
	for _, list := range []string{"tools", "resources", "prompts"} {
		if got := cl.waitChanged(list, 1); got != 1 {
			t.Fatalf("stream on the other process, after publishing on a: %d %s/list_changed, want 1", got, list)
		}
	}
	a.call(t, "DELETE", "/api/bots/"+bot, bootstrapToken, nil).must(t, 200)
	if got := cl.waitChanged("tools", 2); got != 2 {
		t.Fatalf("after deleting: %d tools/list_changed in all, want 2", got)
	}
	if rt.sent[toOther.Host].Load() != 1 || rt.sent[toA.Host].Load() < 4 {
		t.Fatalf("requests to a %d, to other %d: want every POST on a and the GET on other",
			rt.sent[toA.Host].Load(), rt.sent[toOther.Host].Load())
	}
	// A stream of the session opened by hand on other ends when the
	// session is deleted on a.
	stream := openStream(t, other, cl.session.ID())
	defer stream.Close()
	ended := make(chan error, 1)
	go func() { _, err := io.Copy(io.Discard, stream); ended <- err }()
	if err := cl.session.Close(); err != nil {
		t.Fatal(err)
	}
	select {
	case err := <-ended:
		if err != nil {
			t.Fatalf("the stream on other broke instead of ending: %v", err)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("the stream on other outlived its session, deleted on a")
	}
	if resp := getStream(t, other, cl.session.ID()); resp.StatusCode != http.StatusNotFound {
		t.Fatalf("a stream of the deleted session: %d, want 404", resp.StatusCode)
	}
}

// openStream opens the stream of session id on s and returns its body.
func openStream(t *testing.T, s *testServer, id string) io.ReadCloser {
	t.Helper()
	resp := getStream(t, s, id)
	if resp.StatusCode != http.StatusOK || resp.Header.Get("Content-Type") != "text/event-stream" {
		t.Fatalf("GET /mcp of session %s: %d %s", id, resp.StatusCode, resp.Header.Get("Content-Type"))
	}
	return resp.Body
}

func getStream(t *testing.T, s *testServer, id string) *http.Response {
	t.Helper()
	req, _ := http.NewRequest("GET", s.base+"/mcp", nil)
	req.Header.Set("Authorization", "Bearer "+bootstrapToken)
	req.Header.Set("Accept", "text/event-stream")
	req.Header.Set("Mcp-Session-Id", id)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	if resp.StatusCode != http.StatusOK {
		resp.Body.Close()
	}
	return resp
}

// mcpCancelElsewhere: on MariaDB+Redis, a notifications/cancelled that
// reaches another process than the one running the call cancels it: a
// chat turn running on a (the process that opened the session) cancelled
// on other, and a workflow run running on other cancelled on a.
func mcpCancelElsewhere(t *testing.T, c *chatSetup, other *testServer, poem string) {
	t.Helper()
	a := c.s
	toA, toOther := mustURL(a.base), mustURL(other.base)
	var callOn, cancelOn atomic.Pointer[url.URL]
	rt := newRouted(bootstrapToken, func(r *http.Request, body []byte) *url.URL {
		switch {
		case bytes.Contains(body, []byte(`"tools/call"`)):
			return callOn.Load()
		case bytes.Contains(body, []byte(`"notifications/cancelled"`)):
			return cancelOn.Load()
		}
		return toA
	}, a, other)
	callOn.Store(toA)
	cancelOn.Store(toOther)
	cl, err := a.connectMCPVia(t, rt, nil)
	if err != nil {
		t.Fatal(err)
	}
	before := rt.sent[toOther.Host].Load()
	started := cancelledCall(t, cl, "chat_slow", map[string]any{"message": "no rush"}, "far-chat")
	ids := regexp.MustCompile(`chat (\d+) of conversation (\d+)`).FindStringSubmatch(started)
	if ids == nil {
		t.Fatalf("chat progress %q names no chat", started)
	}
	waitFor(t, "the chat on a to end canceled by a cancellation sent to other", func() bool {
		r := a.call(t, "GET", "/v3/chat/retrieve?conversation_id="+ids[2]+"&chat_id="+ids[1], bootstrapToken, nil).must(t, 200)
		return str(r.data, "status") == "canceled"
	})
	if rt.sent[toOther.Host].Load() == before {
		t.Fatal("the cancellation did not go to the other process")
	}
	callOn.Store(toOther)
	cancelOn.Store(toA)
	cancelledCall(t, cl, "wf_poem", map[string]any{"topic": "distance"}, "far-wf")
	waitFor(t, "the run on other to end cancelled by a cancellation sent to a", func() bool {
		runs := items(t, a.call(t, "GET", "/api/workflows/"+poem+"/runs", bootstrapToken, nil).must(t, 200).data, "items")
		for _, r := range runs {
			if str(r, "status") != "cancelled" {
				return false
			}
		}
		return len(runs) == 2
	})
}

// mcpAskElsewhere: on MariaDB+Redis, a call running on a (the process
// that opened the session) asks a question through elicitation, and the
// client's answer, sent to other, reaches it: the run finishes with it.
func mcpAskElsewhere(t *testing.T, c *chatSetup, other *testServer) {
	t.Helper()
	a := c.s
	c.workflow(t, "Pick_Size", "Orders an item in a size the user picks.", pickSizeFlow, true)
	toA, toOther := mustURL(a.base), mustURL(other.base)
	rt := newRouted(bootstrapToken, func(r *http.Request, body []byte) *url.URL {
		if r.Method == http.MethodPost && bytes.Contains(body, []byte(`"result"`)) && !bytes.Contains(body, []byte(`"method"`)) {
			return toOther // the client's answer
		}
		return toA
	}, a, other)
	cl, err := a.connectMCPVia(t, rt, func(*mcp.ElicitRequest) (*mcp.ElicitResult, error) {
		return &mcp.ElicitResult{Action: "accept", Content: map[string]any{"answer": "L"}}, nil
	})
	if err != nil {
		t.Fatal(err)
	}
	res := cl.call(t, "wf_pick_size", map[string]any{"item": "mug"}, "")
	if out := structured(t, res); res.IsError || out["item"] != "mug" || out["size"] != "L" {
		t.Fatalf("a run answered through the other process: error %v %q %v", res.IsError, textOf(res), out)
	}
	if rt.sent[toOther.Host].Load() != 1 {
		t.Fatalf("%d requests went to the other process, want the answer", rt.sent[toOther.Host].Load())
	}
}
