package main

import (
	"encoding/base64"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/pergola-ai/pergola/infra/fakellm"
)

// gardenDoc is the only place the answer lives: the fake model answers
// "Marigold" only when the recalled chunk reached its prompt.
const gardenDoc = `# Garden handbook

Water the tomatoes every morning and the roses twice a week.

## The robot

The garden robot's secret code name is Marigold. It mows the lawn at night.
`

// TestKnowledgeBotE2E: a published bot with a knowledge base (auto call,
// bound through Coze's bot API) answers a question only its document
// answers, through /v3/chat streamed and polled, on every back end. The fake model must receive the
// recalled chunk, and the chat's messages must hold the knowledge_recall
// verbose message naming the document. A bot cannot bind another
// workspace's knowledge base.
func TestKnowledgeBotE2E(t *testing.T) {
	for _, b := range backends() {
		t.Run(b.name, func(t *testing.T) {
			c := newChatSetup(t, b)
			s := c.s
			s.call(t, "POST", "/api/admin/models", bootstrapToken, map[string]any{"id": "embed", "kind": "embedding",
				"provider": "openai", "base_url": c.llm.BaseURL(), "api_key": "k", "model": "fake-embed"}).must(t, 201)
			kb := knowledgeWithDoc(t, s, c.ws, "Garden", "garden.md", gardenDoc)
			c.llm.When(func(r fakellm.Request) bool { return strings.Contains(r.Messages[0].Content, "Marigold") },
				func(fakellm.Request) fakellm.Reply { return fakellm.Text("The robot is called Marigold.") })

			botID := str(s.call(t, "POST", "/v1/bot/create", bootstrapToken, map[string]any{"space_id": c.ws, "name": "Gardener",
				"model_info_config": map[string]any{"model_id": "fake"},
				"knowledge":         map[string]any{"dataset_ids": []string{kb}, "auto_call": true, "search_strategy": 1, "show_source": true}}).must(t, 200).data, "bot_id")
			s.call(t, "POST", "/v1/bot/publish", bootstrapToken, map[string]any{"bot_id": botID, "connector_ids": []string{"1024"}}).must(t, 200)
			online := s.call(t, "GET", "/v1/bots/"+botID, bootstrapToken, nil).must(t, 200).data
			infos := items(t, online["knowledge"].(map[string]any), "knowledge_infos")
			if len(infos) != 1 || str(infos[0], "id") != kb || str(infos[0], "name") != "Garden" {
				t.Fatalf("knowledge of the published bot = %v", online["knowledge"])
			}

			question := "What is the secret code name of the garden robot?"
			t.Run("streamed", func(t *testing.T) { knowledgeStreamed(t, c, botID, question) })
			t.Run("polled", func(t *testing.T) { knowledgePolled(t, c, botID, question) })
			t.Run("another workspace's knowledge base", func(t *testing.T) {
				other := str(s.call(t, "POST", "/api/workspaces", bootstrapToken, map[string]any{"name": "Other"}).must(t, 201).data, "id")
				foreign := str(s.call(t, "POST", "/api/knowledge", bootstrapToken, map[string]any{"workspace_id": other, "name": "Theirs",
					"format_type": 0}).must(t, 201).data, "id")
				s.call(t, "POST", "/v1/bot/update", bootstrapToken, map[string]any{"bot_id": botID,
					"knowledge": map[string]any{"dataset_ids": []string{kb, foreign}}}).fails(t, 400, 4000, "knowledge.dataset_ids[1]")
			})
		})
	}
}

// knowledgeWithDoc creates a knowledge base in ws with one markdown
// document, through the console's knowledge routes, and waits until it is
// indexed.
func knowledgeWithDoc(t *testing.T, s *testServer, ws, name, docName, text string) string {
	t.Helper()
	kb := str(s.call(t, "POST", "/api/knowledge", bootstrapToken, map[string]any{"workspace_id": ws, "name": name, "format_type": 0}).must(t, 201).data, "id")
	added := s.call(t, "POST", "/api/knowledge/"+kb+"/documents", bootstrapToken, map[string]any{"documents": []map[string]any{
		{"name": docName, "content": base64.StdEncoding.EncodeToString([]byte(text)), "file_type": "md"}}}).must(t, 201)
	docs := items(t, added.data, "documents")
	if len(docs) != 1 {
		t.Fatalf("documents added = %v", added.data)
	}
	doc := str(docs[0], "id")
	deadline := time.Now().Add(60 * time.Second)
	for {
		progress := s.call(t, "GET", "/api/knowledge/"+kb+"/progress?document_ids="+doc, bootstrapToken, nil).must(t, 200)
		list := items(t, progress.data, "items")
		switch st, _ := list[0]["status"].(float64); st {
		case 1:
			return kb
		case 9:
			t.Fatalf("indexing failed: %v", list[0])
		}
		if time.Now().After(deadline) {
			t.Fatalf("document not indexed after 60s: %v", list[0])
		}
		time.Sleep(50 * time.Millisecond)
	}
}

func knowledgeStreamed(t *testing.T, c *chatSetup, botID, question string) {
	events := c.s.stream(t, "/v3/chat", bootstrapToken, map[string]any{"bot_id": botID, "user_id": "u1", "stream": true,
		"additional_messages": userMessage(question)})
	var answer strings.Builder
	recalled := false
	for _, e := range events {
		if !strings.HasPrefix(e.name, "conversation.message.") {
			continue
		}
		m := e.obj(t)
		switch {
		case e.name == "conversation.message.delta" && str(m, "type") == "answer":
			answer.WriteString(str(m, "content"))
		case e.name == "conversation.message.completed" && str(m, "type") == "verbose":
			recalled = recalled || recallNames(t, str(m, "content"), "garden.md", "Marigold")
		}
	}
	if got := answer.String(); !strings.HasPrefix(got, "The robot is called Marigold.") || !strings.HasSuffix(got, "Sources:\n1. garden.md") {
		t.Fatalf("streamed answer = %q; the model did not get the recalled chunk, or the sources are missing", got)
	}
	if !recalled {
		t.Fatalf("no knowledge_recall verbose message naming garden.md was streamed: %v", names(events))
	}
	sys := lastRequest(c).Messages[0].Content
	if !strings.Contains(sys, "<knowledge>") || !strings.Contains(sys, "secret code name is Marigold") {
		t.Fatalf("the model's system prompt lacks the quoted chunk:\n%s", sys)
	}
}

func knowledgePolled(t *testing.T, c *chatSetup, botID, question string) {
	s := c.s
	conv := str(s.call(t, "POST", "/v1/conversation/create", bootstrapToken, map[string]any{"bot_id": botID}).must(t, 200).data, "id")
	chat := s.call(t, "POST", "/v3/chat?conversation_id="+conv, bootstrapToken, map[string]any{"bot_id": botID, "user_id": "u2",
		"additional_messages": userMessage(question), "stream": false}).must(t, 200)
	chatID := str(chat.data, "id")
	if final := pollChat(t, s, conv, chatID); str(final, "status") != "completed" {
		t.Fatalf("polled chat = %v", final)
	}
	msgs := s.call(t, "GET", "/v3/chat/message/list?conversation_id="+conv+"&chat_id="+chatID, bootstrapToken, nil).must(t, 200)
	list, _ := msgs.raw["data"].([]any)
	var answer string
	recalled := false
	for _, v := range list {
		m := v.(map[string]any)
		switch str(m, "type") {
		case "answer":
			answer = str(m, "content")
		case "verbose":
			recalled = recalled || recallNames(t, str(m, "content"), "garden.md", "Marigold")
		}
	}
	if !strings.HasPrefix(answer, "The robot is called Marigold.") || !recalled {
		t.Fatalf("chat messages = %v", list)
	}
}

// recallNames reports whether a verbose message's content is a
// knowledge_recall whose chunks include doc, with text containing text.
func recallNames(t *testing.T, content, doc, text string) bool {
	t.Helper()
	var outer struct {
		MsgType string `json:"msg_type"`
		Data    string `json:"data"`
	}
	if json.Unmarshal([]byte(content), &outer) != nil || outer.MsgType != "knowledge_recall" {
		return false
	}
	var data struct {
		Chunks []struct {
			Slice string  `json:"slice"`
			Score float64 `json:"score"`
			Meta  struct {
				Document struct {
					Name string `json:"name"`
				} `json:"document"`
			} `json:"meta"`
		} `json:"chunks"`
	}
	if err := json.Unmarshal([]byte(outer.Data), &data); err != nil {
		t.Fatalf("knowledge_recall data %q: %v", outer.Data, err)
	}
	for _, ch := range data.Chunks {
		if ch.Meta.Document.Name == doc && strings.Contains(ch.Slice, text) && ch.Score != 0 {
			return true
		}
	}
	return false
}

func lastRequest(c *chatSetup) fakellm.Request {
	reqs := c.llm.Requests()
	return reqs[len(reqs)-1]
}
