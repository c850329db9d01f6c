package provider

import (
	"sync"

	embopenai "github.com/cloudwego/eino-ext/components/embedding/openai"

	"github.com/pergola-ai/pergola/domain/llm"
)

// Embedders keeps one embedding client per model id, built on first use
// and built again when the model's settings (endpoint, model name, API
// key, dimensions) differ from those it was built with, so that a model
// changed in the registry is used at once. Safe for concurrent use.
type Embedders struct {
	mu   sync.Mutex
	byID map[string]embedClient
}

// embedClient is a client and the settings it was built with.
type embedClient struct {
	settings embedSettings
	e        *embopenai.Embedder
}

// embedSettings are the parts of a model an embedding client is built
// from.
type embedSettings struct {
	baseURL, model, apiKey string
	dims                   int
}

// NewEmbedders returns an empty client cache.
func NewEmbedders() *Embedders {
	return &Embedders{byID: map[string]embedClient{}}
}

// get returns the cached client of m, or builds one with build and
// keeps it; a nil cache always builds. A failed build is not kept.
func (c *Embedders) get(m llm.Model, build func() (*embopenai.Embedder, error)) (*embopenai.Embedder, error) {
	if c == nil {
		return build()
	}
	want := embedSettings{baseURL: baseURL(m), model: m.Model, apiKey: m.APIKey, dims: m.Dimensions}
	c.mu.Lock()
	got, ok := c.byID[m.ID]
	c.mu.Unlock()
	if ok && got.settings == want {
		return got.e, nil
	}
	e, err := build()
	if err != nil {
		return nil, err
	}
	c.mu.Lock()
	c.byID[m.ID] = embedClient{settings: want, e: e}
	c.mu.Unlock()
	return e, nil
}
