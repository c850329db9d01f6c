package provider

import (
	"context"
	"errors"
	"fmt"
	"strings"

	embopenai "github.com/cloudwego/eino-ext/components/embedding/openai"
	goopenai "github.com/meguminnnnnnnnn/go-openai"

	"github.com/pergola-ai/pergola/domain/errs"
	"github.com/pergola-ai/pergola/domain/llm"
)

// DefaultEmbedBatch is how many texts Embed sends per request unless the
// Factory says otherwise; OpenAI accepts up to 2048, but smaller requests
// fail and retry cheaper and suit slower local servers.
const DefaultEmbedBatch = 64

// Embed returns the vectors of texts, in order, from the embedding model m
// through the OpenAI embeddings API (eino-ext's embedder): at most
// EmbedBatch texts per request, each request retried on 429 and 5xx (see
// RetryAttempts). It returns an error matching errs.ErrInvalid when m is
// not an OpenAI-compatible embedding model, and an error naming the model
// when the provider fails (its HTTP status and a short excerpt of its
// answer), answers with the wrong number of vectors, or returns vectors
// whose length differs from m.Dimensions (when set).
func (f Factory) Embed(ctx context.Context, m llm.Model, texts []string) ([][]float32, error) {
	if err := embeddingModel(m); err != nil {
		return nil, err
	}
	e, err := f.Embedders.get(m, func() (*embopenai.Embedder, error) { return f.embedder(ctx, m) })
	if err != nil {
		return nil, err
	}
	batch := f.EmbedBatch
	if batch <= 0 {
		batch = DefaultEmbedBatch
	}
	out := make([][]float32, 0, len(texts))
	for start := 0; start < len(texts); start += batch {
		part := texts[start:min(start+batch, len(texts))]
		vecs, err := e.EmbedStrings(ctx, part)
		if err != nil {
			return nil, providerError("embedding", m, err)
		}
		got, err := toFloat32(m, vecs, len(part))
		if err != nil {
			return nil, err
		}
		out = append(out, got...)
	}
	return out, nil
}

func embeddingModel(m llm.Model) error {
	if m.KindOrChat() != llm.KindEmbedding {
		return errs.Invalid("model_id", "model %q is of kind %q; embeddings need a model of kind %q", m.ID, m.KindOrChat(), llm.KindEmbedding)
	}
	if m.Provider != llm.ProviderOpenAI {
		return errs.Invalid("provider", "embedding model %q must use provider %q (an OpenAI-compatible endpoint); got %q", m.ID, llm.ProviderOpenAI, m.Provider)
	}
	return nil
}

func (f Factory) embedder(ctx context.Context, m llm.Model) (*embopenai.Embedder, error) {
	cfg := &embopenai.EmbeddingConfig{
		APIKey: m.APIKey, Model: m.Model, BaseURL: baseURL(m), HTTPClient: f.retryingClient(),
	}
	if m.Dimensions > 0 {
		dims := m.Dimensions
		cfg.Dimensions = &dims
	}
	e, err := embopenai.NewEmbedder(ctx, cfg)
	if err != nil {
		return nil, fmt.Errorf("embedding model %s: %w", m.ID, err)
	}
	return e, nil
}

func baseURL(m llm.Model) string {
	if m.BaseURL == "" {
		return DefaultOpenAIBaseURL
	}
	return strings.TrimRight(m.BaseURL, "/")
}

// toFloat32 converts one batch's vectors, checking their count and length.
func toFloat32(m llm.Model, vecs [][]float64, want int) ([][]float32, error) {
	if len(vecs) != want {
		return nil, fmt.Errorf("embedding model %s: the provider returned %d vectors for %d texts", m.ID, len(vecs), want)
	}
	out := make([][]float32, len(vecs))
	for i, v := range vecs {
		if m.Dimensions > 0 && len(v) != m.Dimensions {
			return nil, fmt.Errorf("embedding model %s: the provider returned vectors of %d dimensions, but the model is configured with dimensions %d", m.ID, len(v), m.Dimensions)
		}
		if len(v) == 0 {
			return nil, fmt.Errorf("embedding model %s: the provider returned an empty vector", m.ID)
		}
		out[i] = make([]float32, len(v))
		for j, x := range v {
			out[i][j] = float32(x)
		}
	}
	return out, nil
}

// StatusError is a call the provider answered with an HTTP error status:
// Status is that status (0 when no answer came), Reason the provider's
// message with the model's API key blanked.
type StatusError struct {
	Status int
	Reason string
	text   string
}

func (e *StatusError) Error() string { return e.text }

// providerError turns a failed call into one readable line naming the
// model: the HTTP status and a short excerpt of the provider's answer,
// with the model's API key blanked should the provider echo it.
func providerError(what string, m llm.Model, err error) error {
	if errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded) {
		return fmt.Errorf("%s model %s: %w", what, m.ID, err)
	}
	se := &StatusError{Reason: err.Error()}
	var api *goopenai.APIError
	var req *goopenai.RequestError
	switch {
	case errors.As(err, &api) && api.HTTPStatusCode != 0:
		se.Status, se.Reason = api.HTTPStatusCode, excerpt(api.Message)
	case errors.As(err, &req):
		se.Status, se.Reason = req.HTTPStatusCode, excerpt(string(req.Body))
	}
	if m.APIKey != "" {
		se.Reason = strings.ReplaceAll(se.Reason, m.APIKey, "[api key]")
	}
	msg := se.Reason
	if se.Status != 0 {
		msg = fmt.Sprintf("the provider answered HTTP %d: %s", se.Status, se.Reason)
	}
	se.text = fmt.Sprintf("%s model %s: %s", what, m.ID, msg)
	return se
}

// excerpt shortens a provider's message to one line of at most 300
// characters.
func excerpt(s string) string {
	r := []rune(strings.Join(strings.Fields(s), " "))
	if len(r) > 300 {
		return string(r[:300]) + "…"
	}
	return string(r)
}
