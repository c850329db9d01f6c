package main

import (
	"bytes"
	"encoding/json"
	"io"
	"net/http"
	"testing"
	"time"

	channelapp "github.com/pergola-ai/pergola/application/channel"
)

// hookCall posts body to a trigger's webhook with headers and decodes the
// answer.
func hookCall(t *testing.T, s *testServer, path string, body []byte, headers map[string]string) (int, map[string]any) {
	t.Helper()
	req, _ := http.NewRequest("POST", s.base+path, bytes.NewReader(body))
	req.Header.Set("Content-Type", "application/json")
	for k, v := range headers {
		req.Header.Set(k, v)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	raw, _ := io.ReadAll(resp.Body)
	var out map[string]any
	if err := json.Unmarshal(raw, &out); err != nil {
		t.Fatalf("POST %s answered %d with %q, not JSON", path, resp.StatusCode, raw)
	}
	return resp.StatusCode, out
}

// TestTriggerWebhook calls webhook triggers of a workflow: a sync one
// signed with HMAC answers the workflow's output, an async one with a
// secret header answers 202 and the run ends in the history; a repeated
// request id answers the first run without a second; bad signatures,
// secrets and inputs are refused saying what to fix; past its rate limit
// a trigger answers 429. On SQLite and on MariaDB with Redis.
func TestTriggerWebhook(t *testing.T) {
	for _, b := range backends() {
		t.Run(b.name, func(t *testing.T) {
			s := startServer(t, triggerEnv(b.env(t)))
			_, wf := publishedCity(t, s)
			sync := s.call(t, "POST", "/api/triggers", bootstrapToken, map[string]any{"name": "sync hook", "kind": "webhook",
				"workflow_id": wf, "answer": "sync", "secret": "hook-secret"}).must(t, 201).data
			path := str(sync, "webhook_path")
			body := []byte(`{"city":"Oslo"}`)
			status, out := hookCall(t, s, path, body, map[string]string{channelapp.SignatureHeader: channelapp.Sign("hook-secret", time.Now(), body)})
			if data, _ := out["data"].(map[string]any); status != 200 || str(data["output"].(map[string]any), "city") != "Oslo" || str(data, "execute_id") == "" {
				t.Fatalf("sync call = %d %v, want 200 with the output city Oslo", status, out)
			}
			status, out = hookCall(t, s, path, body, map[string]string{channelapp.SignatureHeader: channelapp.Sign("wrong", time.Now(), body)})
			if status != 401 {
				t.Errorf("a wrong signature = %d %v, want 401", status, out)
			}
			bad := []byte(`{"town":"Oslo"}`)
			status, out = hookCall(t, s, path, bad, map[string]string{channelapp.SignatureHeader: channelapp.Sign("hook-secret", time.Now(), bad)})
			if status != 400 || !bytes.Contains([]byte(str(out, "msg")), []byte("city")) {
				t.Errorf("a call without the input city = %d %v, want 400 naming city", status, out)
			}
			checkAsyncHook(t, s, wf)
		})
	}
}

func checkAsyncHook(t *testing.T, s *testServer, wf string) {
	d := s.call(t, "POST", "/api/triggers", bootstrapToken, map[string]any{"name": "async hook", "kind": "webhook",
		"workflow_id": wf, "auth": "header", "rate_limit": 3}).must(t, 201).data
	path, secret := str(d, "webhook_path"), str(d, "secret")
	if secret == "" {
		t.Fatalf("created webhook trigger shows no generated secret: %v", d)
	}
	hdr := map[string]string{"X-Pergola-Secret": secret, "Idempotency-Key": "req-1"}
	status, out := hookCall(t, s, path+"?city=Rome", nil, hdr)
	first := str(out["data"].(map[string]any), "execute_id")
	if status != 202 || first == "" {
		t.Fatalf("async call = %d %v, want 202 with the execute id", status, out)
	}
	status, out = hookCall(t, s, path+"?city=Rome", nil, hdr)
	if again := out["data"].(map[string]any); status != 200 || str(again, "execute_id") != first || again["duplicate"] != true {
		t.Errorf("repeated request id = %d %v, want 200 with execute id %s", status, out, first)
	}
	h := waitHistory(t, s, wf, first, "the webhook's run to end", func(h map[string]any) bool { return str(h, "execute_status") != "Running" })
	if str(h, "execute_status") != "Success" {
		t.Errorf("the webhook's run ended %v", h)
	}
	if n := triggerRuns(t, s, wf, str(d, "id")); n != 1 {
		t.Errorf("%d runs after a call and its repeat, want 1", n)
	}
	if status, out := hookCall(t, s, path, []byte(`{"city":"x"}`), map[string]string{"X-Pergola-Secret": "nope"}); status != 401 {
		t.Errorf("a wrong secret header = %d %v, want 401", status, out)
	}
	status, _ = hookCall(t, s, path, []byte(`{"city":"x"}`), map[string]string{"X-Pergola-Secret": secret})
	if status != 202 {
		t.Errorf("third call = %d, want 202", status)
	}
	if status, out := hookCall(t, s, path, []byte(`{"city":"x"}`), map[string]string{"X-Pergola-Secret": secret}); status != 429 {
		t.Errorf("fourth call of a 3-a-minute trigger = %d %v, want 429", status, out)
	}
}
