package main

import (
	"maps"
	"testing"
	"time"

	channelapp "github.com/pergola-ai/pergola/application/channel"
	"github.com/pergola-ai/pergola/infra/fakellm"
)

// TestChannelsWebhookTwoProcesses shows the queue carrying channel events
// between processes on MariaDB + Redis: a process with
// PERGOLA_CHANNEL_WORKERS=0 receives and acknowledges a callback-mode
// event but answers none; the event waits, stored and queued, until a
// second process starts and answers it at callback_url.
func TestChannelsWebhookTwoProcesses(t *testing.T) {
	b := backends()[1]
	env := b.env(t)
	env["PERGOLA_EGRESS_ALLOW"] = "127.0.0.1"
	receiverEnv := maps.Clone(env)
	receiverEnv["PERGOLA_CHANNEL_WORKERS"] = "0"
	llm := fakellm.New()
	url, err := llm.Listen("127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = llm.Close() })

	receiver := startServer(t, receiverEnv)
	receiver.call(t, "POST", "/api/admin/models", bootstrapToken, map[string]any{"id": "fake", "provider": "openai", "base_url": url,
		"api_key": "k", "model": "fake"}).must(t, 201)
	ws := str(receiver.call(t, "POST", "/api/workspaces", bootstrapToken, map[string]any{"name": "Two"}).must(t, 201).data, "id")
	botID := str(receiver.call(t, "POST", "/api/bots", bootstrapToken, map[string]any{"workspace_id": ws, "name": "Relay",
		"model": map[string]any{"model_id": "fake"}}).must(t, 201).data, "id")
	sink := newCallbackSink(t)
	chID, path := webhookChannel(t, receiver, botID, map[string]any{"callback_url": sink.srv.URL})
	receiver.call(t, "POST", "/api/bots/"+botID+"/publish", bootstrapToken, map[string]any{"connector_ids": []string{chID}}).must(t, 201)

	r := postEvent(t, receiver, path, webhookSecret, time.Now(), map[string]any{"event_id": "relay-1", "user_id": "dan", "text": "across"})
	if r.status != 202 {
		t.Fatalf("receiver = %d %v; want 202", r.status, r.body)
	}
	time.Sleep(300 * time.Millisecond) // a receiver-only process must not answer, however long it is given
	if d := deliveries(t, receiver, botID, chID); len(d) != 1 || str(d[0], "status") != "received" || modelCalls(llm, "across") != 0 {
		t.Fatalf("before a worker runs: %v, %d model calls; want the event received and unanswered", d, modelCalls(llm, "across"))
	}

	startServer(t, env) // the worker
	post := sink.wait(t, "relay-1", 1)[0]
	if err := channelapp.Verify(webhookSecret, post.signature, post.body, time.Now()); err != nil {
		t.Fatalf("answer from the second process is not signed: %v", err)
	}
	if d := waitDelivery(t, receiver, botID, chID, "relay-1", "delivered"); d["attempts"] != float64(1) || modelCalls(llm, "across") != 1 {
		t.Fatalf("delivery = %v, %d model calls; want delivered once", d, modelCalls(llm, "across"))
	}
}
