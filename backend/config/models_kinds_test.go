package config

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/pergola-ai/pergola/domain/llm"
)

func writeModels(t *testing.T, body string) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), "models.yaml")
	if err := os.WriteFile(p, []byte(body), 0o600); err != nil {
		t.Fatal(err)
	}
	return p
}

func TestLoadModelKinds(t *testing.T) {
	p := writeModels(t, `models:
  - {id: chat, provider: openai, model: gpt-4o-mini}
  - {id: emb, provider: openai, model: text-embedding-3-small, kind: embedding, dimensions: 512, default: true}
  - {id: rr, provider: openai, base_url: https://api.jina.ai/v1, model: jina-reranker-v2-base-multilingual, kind: rerank}
`)
	ms, err := LoadModels(p, envOf(nil))
	if err != nil {
		t.Fatal(err)
	}
	if ms[0].Kind != llm.KindChat || ms[1].Kind != llm.KindEmbedding || ms[1].Dimensions != 512 || !ms[1].Default || ms[2].Kind != llm.KindRerank {
		t.Fatalf("got %+v", ms)
	}
	for name, c := range map[string]struct{ body, field string }{
		"two defaults": {`models:
  - {id: a, provider: openai, model: x, kind: embedding, default: true}
  - {id: b, provider: openai, model: y, kind: embedding, default: true}
`, "models[1].default"},
		"unknown kind":     {"models:\n  - {id: a, provider: openai, model: x, kind: vision}\n", "models[0].kind"},
		"gemini embedding": {"models:\n  - {id: a, provider: gemini, model: x, kind: embedding}\n", "models[0].kind"},
		"default chat":     {"models:\n  - {id: a, provider: openai, model: x, default: true}\n", "models[0].default"},
	} {
		if _, err := LoadModels(writeModels(t, c.body), envOf(nil)); err == nil || !strings.Contains(err.Error(), c.field) {
			t.Errorf("%s: %v; want an error naming %s", name, err, c.field)
		}
	}
}

// TestModelsExampleLoads keeps scripts/models.example.yaml valid.
func TestModelsExampleLoads(t *testing.T) {
	ms, err := LoadModels(filepath.Join("..", "..", "scripts", "models.example.yaml"), envOf(nil))
	if err != nil {
		t.Fatal(err)
	}
	kinds := map[string]int{}
	for _, m := range ms {
		kinds[m.Kind]++
	}
	if kinds[llm.KindChat] != 1 || kinds[llm.KindEmbedding] != 1 || kinds[llm.KindRerank] != 1 {
		t.Errorf("example kinds = %v; want one of each", kinds)
	}
}
