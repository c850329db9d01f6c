package main

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"strconv"
	"testing"
	"time"

	channelapp "github.com/pergola-ai/pergola/application/channel"
)

// BenchmarkWebhookInbound measures the inbound path of a webhook channel
// with a callback_url through the real server on SQLite: HTTP, verify the
// signature, store the event, enqueue it, acknowledge with 202. The server
// answers none (PERGOLA_CHANNEL_WORKERS=0), so only the inbound path is
// timed. Run: go test -run xxx -bench WebhookInbound ./backend/cmd/pergola/
func BenchmarkWebhookInbound(b *testing.B) {
	env := map[string]string{"PERGOLA_ADDR": "127.0.0.1:0", "PERGOLA_DATA_DIR": b.TempDir(), "PERGOLA_BOOTSTRAP_TOKEN": bootstrapToken,
		"PERGOLA_LOG_LEVEL": "error", "PERGOLA_CHANNEL_WORKERS": "0"}
	ctx, cancel := context.WithCancel(context.Background())
	ready, done := make(chan string, 1), make(chan error, 1)
	go func() { done <- serve(ctx, func(k string) (string, bool) { v, ok := env[k]; return v, ok }, ready) }()
	defer func() { cancel(); <-done }()
	base := "http://" + <-ready
	benchCall(b, base, "/api/admin/models", map[string]any{"id": "fake", "provider": "openai", "base_url": "http://127.0.0.1:9",
		"api_key": "k", "model": "fake"})
	ws := benchCall(b, base, "/api/workspaces", map[string]any{"name": "Bench"})
	botID := benchCall(b, base, "/api/bots", map[string]any{"workspace_id": ws, "name": "Bench", "model": map[string]any{"model_id": "fake"}})
	chID := benchCall(b, base, "/api/bots/"+botID+"/channels", map[string]any{"kind": "webhook",
		"settings": map[string]any{"secret": webhookSecret, "callback_url": "https://crm.example.com/hook"}})
	benchCall(b, base, "/api/bots/"+botID+"/publish", map[string]any{"connector_ids": []string{chID}})
	path := base + "/channels/webhook/" + chID
	client := &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: 64}}
	b.ResetTimer()
	for i := 0; b.Loop(); i++ {
		body, _ := json.Marshal(map[string]string{"event_id": "bench-" + strconv.Itoa(i), "user_id": "u", "text": "hello"})
		req, _ := http.NewRequest("POST", path, bytes.NewReader(body))
		req.Header.Set(channelapp.SignatureHeader, channelapp.Sign(webhookSecret, time.Now(), body))
		resp, err := client.Do(req)
		if err != nil {
			b.Fatal(err)
		}
		_, _ = io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
		if resp.StatusCode != http.StatusAccepted {
			b.Fatalf("status %d", resp.StatusCode)
		}
	}
}

// benchCall POSTs body with the bootstrap token and returns data.id.
func benchCall(b *testing.B, base, path string, body any) string {
	b.Helper()
	raw, _ := json.Marshal(body)
	req, _ := http.NewRequest("POST", base+path, bytes.NewReader(raw))
	req.Header.Set("Authorization", "Bearer "+bootstrapToken)
	req.Header.Set("Content-Type", "application/json")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		b.Fatal(err)
	}
	defer resp.Body.Close()
	var out struct {
		Data struct {
			ID      string `json:"id"`
			Version any    `json:"version"`
		} `json:"data"`
	}
	if err := json.NewDecoder(resp.Body).Decode(&out); err != nil || resp.StatusCode >= 300 {
		b.Fatalf("POST %s = %d, %v", path, resp.StatusCode, err)
	}
	return out.Data.ID
}
