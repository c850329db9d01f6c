package main

import (
	"bytes"
	"encoding/json"
	"net/http"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/pergola-ai/pergola/infra/fakellm"
	"github.com/pergola-ai/pergola/infra/testenv"
)

// TestMessageBurstMemory sends a burst of large messages through the real
// server (in this process): messages just within the default limit
// (32,000 characters), answered at length by the model, and messages of
// 7 MiB, refused. It logs the resident memory before, at its peak and
// after, and fails when memory does not come back near its start: the
// 7 MiB messages once cost over 100 MB each and stayed.
func TestMessageBurstMemory(t *testing.T) {
	llm := fakellm.New(fakellm.WithChunkChars(4096)) // answers as long as the question, in few chunks
	url, err := llm.Listen("127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = llm.Close() })
	c := &chatSetup{s: startServer(t, nil), llm: llm}
	c.s.call(t, "POST", "/api/admin/models", bootstrapToken, map[string]any{"id": "fake", "provider": "openai",
		"base_url": url, "api_key": "k", "model": "fake"}).must(t, 201)
	c.ws = str(items(t, c.s.call(t, "GET", "/v1/workspaces", bootstrapToken, nil).must(t, 200).data, "workspaces")[0], "id")
	botID := c.bot(t, map[string]any{"name": "Echo", "model": map[string]any{"model_id": "fake"}})
	within, huge := strings.Repeat("w", 32_000), strings.Repeat("x", 7<<20)
	post := func(path string, body any, want int) {
		t.Helper()
		buf, _ := json.Marshal(body)
		req, _ := http.NewRequest("POST", c.s.base+path, bytes.NewReader(buf))
		req.Header.Set("Authorization", "Bearer "+bootstrapToken)
		req.Header.Set("Content-Type", "application/json")
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		_ = resp.Body.Close()
		if resp.StatusCode != want {
			t.Fatalf("POST %s answered %d, want %d", path, resp.StatusCode, want)
		}
	}
	settle := func() int64 { runtime.GC(); return testenv.ProcStatus(t, "VmRSS") }
	post("/v1/chat/completions", map[string]any{"model": botID, "messages": []map[string]any{{"role": "user", "content": within}}}, 200)
	start := settle()
	testenv.ResetPeakRSS(t)
	start0 := time.Now()
	for i := 0; i < 3; i++ {
		post("/v1/chat/completions", map[string]any{"model": botID, "messages": []map[string]any{{"role": "user", "content": within}}}, 200)
		post("/v1/chat/completions", map[string]any{"model": botID, "messages": []map[string]any{{"role": "user", "content": huge}}}, 400)
		post("/v3/chat", map[string]any{"bot_id": botID, "user_id": "u", "additional_messages": userMessage(huge)}, 400)
	}
	peak := testenv.ProcStatus(t, "VmHWM")
	const near = 48 << 20
	after := settle()
	for deadline := time.Now().Add(10 * time.Second); after > start+near && time.Now().Before(deadline); {
		time.Sleep(200 * time.Millisecond)
		after = settle()
	}
	t.Logf("RSS before %d MB, peak %d MB, after %d MB (9 requests, 6 of them 7 MiB, in %s)", start>>20, peak>>20, after>>20,
		time.Since(start0).Round(time.Millisecond))
	if after > start+near {
		t.Fatalf("RSS after the burst is %d MB, %d MB over its start; want within %d MB", after>>20, (after-start)>>20, near>>20)
	}
}
