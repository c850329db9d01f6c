package main

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/pergola-ai/pergola/infra/fakellm"
)

// TestRetrievalTraceExport: a knowledge bot's automatic recall is the
// GenAI conventions' retrieval span, in GET /api/traces/{id} and in the
// OTLP export: named "retrieval {knowledge id}", gen_ai.operation.name
// retrieval, the knowledge base as gen_ai.data_source.id, under the
// turn's invoke_agent span; the query and the recalled documents (each
// with an id and a score) are exported only when content is captured (on
// for SQLite, off for MariaDB).
func TestRetrievalTraceExport(t *testing.T) {
	for i, b := range backends() {
		t.Run(b.name, func(t *testing.T) {
			capture := i == 0
			otlp := newOTLPReceiver(t)
			c := newChatSetup(t, withEnv(b, map[string]string{"PERGOLA_OTLP_ENDPOINT": otlp.URL,
				"PERGOLA_OTLP_CAPTURE_CONTENT": map[bool]string{true: "true", false: "false"}[capture]}))
			s := c.s
			s.call(t, "POST", "/api/admin/models", bootstrapToken, map[string]any{"id": "embed", "kind": "embedding",
				"provider": "openai", "base_url": c.llm.BaseURL(), "api_key": "k", "model": "fake-embed"}).must(t, 201)
			kb := knowledgeWithDoc(t, s, c.ws, "Garden", "garden.md", gardenDoc)
			c.llm.When(func(r fakellm.Request) bool { return strings.Contains(r.Messages[0].Content, "Marigold") },
				func(fakellm.Request) fakellm.Reply { return fakellm.Text("The robot is called Marigold.") })
			botID := str(s.call(t, "POST", "/v1/bot/create", bootstrapToken, map[string]any{"space_id": c.ws, "name": "Gardener",
				"model_info_config": map[string]any{"model_id": "fake"},
				"knowledge":         map[string]any{"dataset_ids": []string{kb}, "auto_call": true, "search_strategy": 1}}).must(t, 200).data, "bot_id")
			s.call(t, "POST", "/v1/bot/publish", bootstrapToken, map[string]any{"bot_id": botID, "connector_ids": []string{"1024"}}).must(t, 200)

			id := chatID(t, s.stream(t, "/v3/chat", bootstrapToken, map[string]any{"bot_id": botID, "user_id": "u1", "stream": true,
				"additional_messages": userMessage("What is the secret code name of the garden robot?")}))
			root := items(t, s.waitTrace(t, id, 1), "runs")[0]["root"].(map[string]any)
			stored := childNamed(t, root, "retrieval "+kb)
			if attr(stored, "gen_ai.operation.name") != "retrieval" || attr(stored, "gen_ai.data_source.id") != kb ||
				!strings.Contains(str(stored["attributes"].(map[string]any), "gen_ai.retrieval.documents"), "Marigold") {
				t.Fatalf("stored retrieval span = %v", stored)
			}

			agent := otlp.waitSpan(t, "invoke_agent of chat "+id, func(sp otlpSpan) bool { return sp.attrs["pergola.chat.id"] == id })
			sp := otlp.waitSpan(t, "retrieval "+kb, func(sp otlpSpan) bool { return sp.name == "retrieval "+kb && sp.traceID == agent.traceID })
			if sp.parentID != agent.spanID || sp.errored {
				t.Fatalf("retrieval span %+v is not an ok child of the turn %s", sp, agent.spanID)
			}
			wantAttrs(t, "retrieval", sp, map[string]string{"gen_ai.operation.name": "retrieval", "gen_ai.data_source.id": kb,
				"pergola.retrieval.hit_count": "*"})
			docs, hasDocs := sp.attrs["gen_ai.retrieval.documents"]
			_, hasQuery := sp.attrs["gen_ai.retrieval.query.text"]
			if hasDocs != capture || hasQuery != capture {
				t.Fatalf("capture content %v: documents exported %v, query exported %v", capture, hasDocs, hasQuery)
			}
			if capture {
				var list []struct {
					ID    string  `json:"id"`
					Score float64 `json:"score"`
				}
				if err := json.Unmarshal([]byte(docs), &list); err != nil || len(list) == 0 || list[0].ID == "" || list[0].Score <= 0 {
					t.Fatalf("gen_ai.retrieval.documents = %s (%v)", docs, err)
				}
			}
		})
	}
}
