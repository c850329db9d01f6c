package main

import (
	"maps"
	"sync"
	"testing"
	"time"

	"github.com/pergola-ai/pergola/infra/fakellm"
)

// TestChannelsOneConversationPerChat: the first two messages of a chat,
// arriving together and answered by two workers at once, end in one
// conversation, the second turn running after the first and seeing it in
// its history. On SQLite the two workers are one process's; on MariaDB +
// Redis they are two processes with one worker each, sharing the
// conversation's lock through Redis.
func TestChannelsOneConversationPerChat(t *testing.T) {
	for _, b := range backends() {
		t.Run(b.name, func(t *testing.T) {
			llm := fakellm.New(fakellm.WithChunkChars(4), fakellm.WithTokenLatency(40*time.Millisecond))
			url, err := llm.Listen("127.0.0.1:0")
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { _ = llm.Close() })
			env := withEnv(b, map[string]string{"PERGOLA_EGRESS_ALLOW": "127.0.0.1", "PERGOLA_CHANNEL_WORKERS": "2"}).env(t)
			if env["PERGOLA_DB_DSN"] != "" {
				env["PERGOLA_CHANNEL_WORKERS"] = "1"
			}
			s := startServer(t, env)
			if env["PERGOLA_DB_DSN"] != "" {
				startServer(t, maps.Clone(env)) // the second worker, in its own process
			}
			s.call(t, "POST", "/api/admin/models", bootstrapToken, map[string]any{"id": "fake", "provider": "openai", "base_url": url,
				"api_key": "k", "model": "fake"}).must(t, 201)
			ws := str(s.call(t, "POST", "/api/workspaces", bootstrapToken, map[string]any{"name": "Race"}).must(t, 201).data, "id")
			botID := str(s.call(t, "POST", "/api/bots", bootstrapToken, map[string]any{"workspace_id": ws, "name": "Race",
				"model": map[string]any{"model_id": "fake"}}).must(t, 201).data, "id")
			sink := newCallbackSink(t)
			chID, path := webhookChannel(t, s, botID, map[string]any{"callback_url": sink.srv.URL})
			s.call(t, "POST", "/api/bots/"+botID+"/publish", bootstrapToken, map[string]any{"connector_ids": []string{chID}}).must(t, 201)

			texts := map[string]string{"race-1": "first message of the chat", "race-2": "second message of the chat"}
			var wg sync.WaitGroup
			for id, text := range texts {
				wg.Add(1)
				go func() {
					defer wg.Done()
					if r := postEvent(t, s, path, webhookSecret, time.Now(), map[string]any{"event_id": id, "user_id": "ann", "text": text}); r.status != 202 {
						t.Errorf("event %s = %d %v; want 202", id, r.status, r.body)
					}
				}()
			}
			wg.Wait()
			d1 := waitDelivery(t, s, botID, chID, "race-1", "delivered")
			d2 := waitDelivery(t, s, botID, chID, "race-2", "delivered")
			if str(d1, "conversation_id") == "" || str(d1, "conversation_id") != str(d2, "conversation_id") {
				t.Fatalf("conversations %s and %s; want the chat's two messages in one", str(d1, "conversation_id"), str(d2, "conversation_id"))
			}
			checkSecondSawFirst(t, llm, texts["race-1"], texts["race-2"])
		})
	}
}

// checkSecondSawFirst checks that one of the two turns ran after the
// other had finished: its model request carries the other's message and
// answer before its own message.
func checkSecondSawFirst(t *testing.T, llm *fakellm.Server, a, b string) {
	t.Helper()
	for _, pair := range [][2]string{{a, b}, {b, a}} {
		for _, r := range llm.Requests() {
			if lastContent(r) != pair[1] {
				continue
			}
			var sawMessage, sawAnswer bool
			for _, m := range r.Messages[:len(r.Messages)-1] {
				sawMessage = sawMessage || m.Content == pair[0]
				sawAnswer = sawAnswer || m.Content == "echo: "+pair[0]
			}
			if sawMessage && sawAnswer {
				return
			}
		}
	}
	t.Fatalf("no turn saw the other's message and answer in its history: the turns ran together")
}
