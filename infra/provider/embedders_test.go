package provider

import (
	"testing"

	embopenai "github.com/cloudwego/eino-ext/components/embedding/openai"

	"github.com/pergola-ai/pergola/domain/llm"
)

func TestEmbeddersReuseAClientUntilTheModelChanges(t *testing.T) {
	c := NewEmbedders()
	builds := 0
	build := func() (*embopenai.Embedder, error) { builds++; return &embopenai.Embedder{}, nil }
	m := llm.Model{ID: "emb", Model: "text-embedding-3-small", BaseURL: "http://a/v1", APIKey: "k"}
	first, _ := c.get(m, build)
	if again, _ := c.get(m, build); again != first || builds != 1 {
		t.Fatalf("the second call built a client again (%d builds)", builds)
	}
	for _, change := range []func(*llm.Model){
		func(m *llm.Model) { m.APIKey = "k2" }, func(m *llm.Model) { m.BaseURL = "http://b/v1" },
		func(m *llm.Model) { m.Model = "other" }, func(m *llm.Model) { m.Dimensions = 256 },
	} {
		before := builds
		change(&m)
		if _, _ = c.get(m, build); builds != before+1 {
			t.Fatalf("a changed model %+v reused the old client", m)
		}
	}
	if _, _ = c.get(llm.Model{ID: "other"}, build); builds != 6 {
		t.Fatalf("another model shared a client")
	}
	var none *Embedders
	none.get(m, build)
	none.get(m, build)
	if builds != 8 {
		t.Fatalf("a nil cache kept a client")
	}
}
