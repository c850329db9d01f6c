package main

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/pergola-ai/pergola/infra/fakellm"
)

// embedOnlyWorkflow has an llm node whose model is an embedding model.
const embedOnlyWorkflow = `{"nodes": [
  {"id": "start", "type": "start", "outputs": [{"name": "q", "type": "string", "required": true}]},
  {"id": "ask", "type": "llm", "config": {"model_id": "emb", "prompt": "{{q}}"}, "inputs": {"q": {"ref": {"node": "start", "path": "q"}}}},
  {"id": "end", "type": "end", "config": {"mode": "variables"}, "inputs": {"a": {"ref": {"node": "ask", "path": "output"}}}}
], "edges": [{"from": "start", "to": "ask"}, {"from": "ask", "to": "end"}]}`

// TestModelKindsE2E: embedding and rerank models go through the admin API
// with their kind, dimensions and default; "test this model" embeds or
// ranks; builders' pickers offer chat models unless asked for a kind; a
// bot or a workflow LLM node cannot run on an embedding model.
func TestModelKindsE2E(t *testing.T) {
	for _, b := range backends() {
		t.Run(b.name, func(t *testing.T) {
			llm := fakellm.Start(t)
			s := startServer(t, b.env(t))
			admin := bootstrapToken
			s.call(t, "POST", "/api/admin/models", admin, map[string]any{"id": "chat", "provider": "openai",
				"base_url": llm.BaseURL(), "model": "fake"}).must(t, 201)
			emb := s.call(t, "POST", "/api/admin/models", admin, map[string]any{"id": "emb", "provider": "openai",
				"base_url": llm.BaseURL(), "model": "text-embedding-3-small", "kind": "embedding", "dimensions": 128, "default": true}).must(t, 201)
			if str(emb.data, "kind") != "embedding" || emb.data["dimensions"] != 128.0 || emb.data["default"] != true {
				t.Fatalf("created embedding model = %v", emb.data)
			}
			s.call(t, "POST", "/api/admin/models", admin, map[string]any{"id": "rr", "provider": "openai",
				"base_url": llm.BaseURL(), "model": "jina-reranker", "kind": "rerank"}).must(t, 201)
			if got := s.call(t, "GET", "/api/admin/models/chat", admin, nil).must(t, 200); str(got.data, "kind") != "chat" {
				t.Fatalf("a model created without kind = %v; want kind chat", got.data)
			}

			// Bad kinds and a second default name the field.
			s.call(t, "POST", "/api/admin/models", admin, map[string]any{"id": "x", "provider": "openai", "model": "m", "kind": "image"}).
				fails(t, 400, 4000, "kind")
			s.call(t, "POST", "/api/admin/models", admin, map[string]any{"id": "x", "provider": "gemini", "model": "m", "kind": "embedding"}).
				fails(t, 400, 4000, "gemini")
			s.call(t, "POST", "/api/admin/models", admin, map[string]any{"id": "x", "provider": "openai", "model": "m", "kind": "embedding", "dimensions": -1}).
				fails(t, 400, 4000, "dimensions")
			s.call(t, "POST", "/api/admin/models", admin, map[string]any{"id": "x", "provider": "openai", "model": "m", "kind": "embedding", "default": true}).
				fails(t, 400, 4000, `default: model "emb" is already the default embedding model`)
			patched := s.call(t, "PATCH", "/api/admin/models/emb", admin, map[string]any{"dimensions": 64}).must(t, 200)
			if patched.data["dimensions"] != 64.0 || patched.data["default"] != true {
				t.Fatalf("patched = %v", patched.data)
			}

			// Testing an embedding model reports its vector length; a
			// rerank model ranks.
			res := s.call(t, "POST", "/api/admin/models/emb/test", admin, nil).must(t, 200)
			if res.data["ok"] != true || res.data["dimensions"] != 64.0 {
				t.Fatalf("test of the embedding model = %v", res.data)
			}
			res = s.call(t, "POST", "/api/admin/models/rr/test", admin, nil).must(t, 200)
			if res.data["ok"] != true || !strings.Contains(str(res.data, "reply"), "ranked 2 documents") {
				t.Fatalf("test of the rerank model = %v", res.data)
			}
			if st := llm.EmbedStats(); st.Requests != 1 || st.RerankRequests != 1 || len(llm.Requests()) != 0 {
				t.Fatalf("fake saw %+v and %d chat requests; want one embedding, one rerank, no chat", st, len(llm.Requests()))
			}

			// Pickers offer chat models unless asked for a kind.
			if got := idsOf(t, s.call(t, "GET", "/api/models", admin, nil).must(t, 200)); got != "chat" {
				t.Fatalf("GET /api/models = %s; want only the chat model", got)
			}
			if got := idsOf(t, s.call(t, "GET", "/api/models?kind=embedding", admin, nil).must(t, 200)); got != "emb" {
				t.Fatalf("GET /api/models?kind=embedding = %s", got)
			}
			s.call(t, "GET", "/api/models?kind=vision", admin, nil).fails(t, 400, 4000, "kind")

			// A bot cannot be given an embedding model, and a workflow LLM
			// node on one fails naming model_id.
			ws := str(s.call(t, "POST", "/api/workspaces", admin, map[string]any{"name": "Kinds"}).must(t, 201).data, "id")
			s.call(t, "POST", "/v1/bot/create", admin, map[string]any{"space_id": ws, "name": "B",
				"model_info_config": map[string]any{"model_id": "emb"}}).fails(t, 400, 4000, "model_id")
			// A published bot whose model became an embedding model is
			// refused when it chats, before any model is called.
			s.call(t, "POST", "/api/admin/models", admin, map[string]any{"id": "chat2", "provider": "openai",
				"base_url": llm.BaseURL(), "model": "fake"}).must(t, 201)
			bot := str(s.call(t, "POST", "/v1/bot/create", admin, map[string]any{"space_id": ws, "name": "B",
				"model_info_config": map[string]any{"model_id": "chat2"}}).must(t, 200).data, "bot_id")
			s.call(t, "POST", "/v1/bot/publish", admin, map[string]any{"bot_id": bot, "connector_ids": []string{"1024"}}).must(t, 200)
			s.call(t, "PATCH", "/api/admin/models/chat2", admin, map[string]any{"kind": "embedding"}).must(t, 200)
			s.call(t, "POST", "/v3/chat", admin, map[string]any{"bot_id": bot, "user_id": "u", "additional_messages": userMessage("hello")}).
				fails(t, 400, 4000, `model.model_id: model "chat2" is of kind "embedding", not a chat model`)
			if n := len(llm.Requests()); n != 0 {
				t.Fatalf("the fake got %d chat requests; want none", n)
			}

			id := str(s.call(t, "POST", "/api/workflows", admin, map[string]any{"workspace_id": ws, "name": "ask",
				"definition": json.RawMessage(embedOnlyWorkflow)}).must(t, 201).data, "id")
			s.call(t, "POST", "/api/workflows/"+id+"/publish", admin, nil).must(t, 201)
			s.call(t, "POST", "/v1/workflow/run", admin, map[string]any{"workflow_id": id, "parameters": map[string]any{"q": "hi"}}).
				fails(t, 400, 4000, `model_id: model "emb" is of kind "embedding", not a chat model`)
		})
	}
}

func idsOf(t *testing.T, r reply) string {
	t.Helper()
	var ids []string
	for _, m := range items(t, r.data, "items") {
		ids = append(ids, str(m, "id"))
	}
	return strings.Join(ids, ",")
}
