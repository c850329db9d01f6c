package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/pergola-ai/pergola/infra/fakellm"
)

// TestClientThatLeavesDoesNotStopTheChat closes the stream after the first
// event; the chat still completes and its answer is stored.
func TestClientThatLeavesDoesNotStopTheChat(t *testing.T) {
	llm := fakellm.New(fakellm.WithChunkChars(1), fakellm.WithTokenLatency(10*time.Millisecond))
	url, err := llm.Listen("127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer llm.Close()
	s := startServer(t, nil)
	s.call(t, "POST", "/api/admin/models", bootstrapToken, map[string]any{"id": "slow", "provider": "openai",
		"base_url": url, "api_key": "k", "model": "fake"}).must(t, 201)
	ws := str(items(t, s.call(t, "GET", "/v1/workspaces", bootstrapToken, nil).must(t, 200).data, "workspaces")[0], "id")
	botID := str(s.call(t, "POST", "/api/bots", bootstrapToken, map[string]any{"workspace_id": ws, "name": "Slow",
		"model": map[string]any{"model_id": "slow"}}).must(t, 201).data, "id")
	s.call(t, "POST", "/api/bots/"+botID+"/publish", bootstrapToken, nil).must(t, 201)

	body, _ := json.Marshal(map[string]any{"bot_id": botID, "user_id": "u", "stream": true,
		"additional_messages": userMessage("a rather long question for a slow model")})
	req, _ := http.NewRequest("POST", s.base+"/v3/chat", bytes.NewReader(body))
	req.Header.Set("Authorization", "Bearer "+bootstrapToken)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	rd := bufio.NewReader(resp.Body)
	var created map[string]any
	for created == nil {
		line, err := rd.ReadString('\n')
		if err != nil {
			t.Fatalf("reading the first event: %v", err)
		}
		if strings.HasPrefix(line, "data: ") {
			_ = json.Unmarshal([]byte(strings.TrimPrefix(line, "data: ")), &created)
		}
	}
	resp.Body.Close() // the client goes away mid-answer

	convID, chatID := str(created, "conversation_id"), str(created, "id")
	final := pollChat(t, s, convID, chatID)
	if str(final, "status") != "completed" {
		t.Fatalf("after the client left the chat ended %v", final)
	}
	msgs := s.call(t, "GET", "/v3/chat/message/list?conversation_id="+convID+"&chat_id="+chatID, bootstrapToken, nil).must(t, 200)
	list, _ := msgs.raw["data"].([]any)
	answer, _ := list[0].(map[string]any)
	if str(answer, "content") != "echo: a rather long question for a slow model" {
		t.Fatalf("stored answer = %v", list)
	}
}
