package main

import (
	"bytes"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	channelapp "github.com/pergola-ai/pergola/application/channel"
)

// webhookSecret signs the webhook channels of the tests.
const webhookSecret = "whsec-test-0123456789abcdef"

// hookReply is the raw answer of the inbound endpoint.
type hookReply struct {
	status int
	body   map[string]any
}

// postEvent posts a webhook event signed at when with secret (the
// channel's unless forged).
func postEvent(t *testing.T, s *testServer, path, secret string, when time.Time, ev map[string]any) hookReply {
	t.Helper()
	body, _ := json.Marshal(ev)
	req, _ := http.NewRequest("POST", s.base+path, bytes.NewReader(body))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set(channelapp.SignatureHeader, channelapp.Sign(secret, when, body))
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	raw, _ := io.ReadAll(resp.Body)
	out := hookReply{status: resp.StatusCode}
	if err := json.Unmarshal(raw, &out.body); err != nil {
		t.Fatalf("POST %s answered %d with %q, not JSON", path, resp.StatusCode, raw)
	}
	return out
}

// webhookChannel creates a webhook channel of botID and returns its id
// and inbound path.
func webhookChannel(t *testing.T, s *testServer, botID string, settings map[string]any) (string, string) {
	t.Helper()
	settings["secret"] = webhookSecret
	id := str(s.call(t, "POST", "/api/bots/"+botID+"/channels", bootstrapToken, map[string]any{"kind": "webhook", "settings": settings}).must(t, 201).data, "id")
	return id, "/channels/webhook/" + id
}

// deliveries lists a channel's deliveries, newest first.
func deliveries(t *testing.T, s *testServer, botID, channelID string) []map[string]any {
	t.Helper()
	return items(t, s.call(t, "GET", "/api/bots/"+botID+"/channels/"+channelID+"/deliveries?limit=100", bootstrapToken, nil).must(t, 200).data, "deliveries")
}

// callbackSink is a system's callback_url on 127.0.0.1: it records the
// signed answers it receives, and answers 503 with Retry-After: 1 to the
// first post of events listed in flaky.
type callbackSink struct {
	srv   *httptest.Server
	mu    sync.Mutex
	got   []callbackPost
	flaky map[string]bool
}

type callbackPost struct {
	body      []byte
	signature string
}

func newCallbackSink(t *testing.T, flaky ...string) *callbackSink {
	t.Helper()
	c := &callbackSink{flaky: map[string]bool{}}
	for _, id := range flaky {
		c.flaky[id] = true
	}
	c.srv = httptest.NewServer(http.HandlerFunc(c.serve))
	t.Cleanup(c.srv.Close)
	return c
}

func (c *callbackSink) serve(w http.ResponseWriter, r *http.Request) {
	body, _ := io.ReadAll(r.Body)
	var a struct {
		EventID string `json:"event_id"`
	}
	_ = json.Unmarshal(body, &a)
	c.mu.Lock()
	defer c.mu.Unlock()
	c.got = append(c.got, callbackPost{body: body, signature: r.Header.Get(channelapp.SignatureHeader)})
	if c.flaky[a.EventID] {
		delete(c.flaky, a.EventID)
		w.Header().Set("Retry-After", "1")
		w.WriteHeader(http.StatusServiceUnavailable)
		return
	}
	w.WriteHeader(http.StatusNoContent)
}

// wait returns the posts of an event once n have arrived.
func (c *callbackSink) wait(t *testing.T, eventID string, n int) []callbackPost {
	t.Helper()
	deadline := time.Now().Add(15 * time.Second)
	for time.Now().Before(deadline) {
		c.mu.Lock()
		var out []callbackPost
		for _, p := range c.got {
			if strings.Contains(string(p.body), `"event_id":"`+eventID+`"`) {
				out = append(out, p)
			}
		}
		c.mu.Unlock()
		if len(out) >= n {
			return out
		}
		time.Sleep(20 * time.Millisecond)
	}
	t.Fatalf("callback_url got fewer than %d posts of event %s", n, eventID)
	return nil
}

// waitDelivery polls a channel's deliveries until the event's status is
// want.
func waitDelivery(t *testing.T, s *testServer, botID, channelID, eventID, want string) map[string]any {
	t.Helper()
	deadline := time.Now().Add(15 * time.Second)
	var last map[string]any
	for time.Now().Before(deadline) {
		for _, d := range deliveries(t, s, botID, channelID) {
			if str(d, "event_id") == eventID {
				last = d
			}
		}
		if last != nil && str(last, "status") == want {
			return last
		}
		time.Sleep(50 * time.Millisecond)
	}
	t.Fatalf("delivery of %s = %v; want status %s", eventID, last, want)
	return nil
}
