package modelreg

import (
	"context"
	"fmt"
	"strings"

	"github.com/pergola-ai/pergola/domain/errs"
	"github.com/pergola-ai/pergola/domain/knowledge"
	"github.com/pergola-ai/pergola/domain/llm"
)

// Embedder embeds texts with an embedding model (infra/provider.Factory).
type Embedder interface {
	Embed(ctx context.Context, m llm.Model, texts []string) ([][]float32, error)
}

// Reranker orders documents by relevance with a rerank model
// (infra/provider.Factory).
type Reranker interface {
	Rerank(ctx context.Context, m llm.Model, query string, docs []string, topN int) ([]knowledge.Ranked, error)
}

// Option configures a Registry.
type Option func(*Registry)

// WithEmbedder lets Test try embedding models.
func WithEmbedder(e Embedder) Option { return func(r *Registry) { r.embedder = e } }

// WithReranker lets Test try rerank models.
func WithReranker(rr Reranker) Option { return func(r *Registry) { r.reranker = rr } }

// ByKind returns the models of kind (llm.KindChat, KindEmbedding or
// KindRerank), disabled ones included, ordered by id.
func (r *Registry) ByKind(ctx context.Context, kind string) ([]llm.Model, error) {
	all, err := r.List(ctx)
	if err != nil {
		return nil, err
	}
	out := all[:0]
	for _, m := range all {
		if m.KindOrChat() == kind {
			out = append(out, m)
		}
	}
	return out, nil
}

// DefaultEmbedding returns the platform's embedding model: the enabled
// embedding model marked default, else the only enabled embedding model.
// When there is none, or several and none is the default, it returns an
// error matching errs.ErrInvalid naming embedding_model that says what an
// administrator should do.
func (r *Registry) DefaultEmbedding(ctx context.Context) (*llm.Model, error) {
	models, err := r.ByKind(ctx, llm.KindEmbedding)
	if err != nil {
		return nil, fmt.Errorf("default embedding model: %w", err)
	}
	var enabled []llm.Model
	for _, m := range models {
		if !m.Enabled {
			continue
		}
		if m.Default {
			return &m, nil
		}
		enabled = append(enabled, m)
	}
	switch len(enabled) {
	case 1:
		return &enabled[0], nil
	case 0:
		return nil, errs.Invalid("embedding_model", "no enabled embedding model is configured; an administrator adds a model of kind %q (POST /api/admin/models or PERGOLA_MODELS_FILE)", llm.KindEmbedding)
	default:
		return nil, errs.Invalid("embedding_model", "%d embedding models are enabled (%s) and none is the default; name one, or have an administrator mark one with default: true",
			len(enabled), strings.Join(modelIDs(enabled), ", "))
	}
}

func modelIDs(ms []llm.Model) []string {
	out := make([]string, len(ms))
	for i, m := range ms {
		out[i] = m.ID
	}
	return out
}

// checkDefault refuses m as the default embedding model when another model
// already is: there is at most one.
func (r *Registry) checkDefault(ctx context.Context, m *llm.Model) error {
	if !m.Default {
		return nil
	}
	models, err := r.ByKind(ctx, llm.KindEmbedding)
	if err != nil {
		return fmt.Errorf("check default embedding model: %w", err)
	}
	for _, o := range models {
		if o.Default && o.ID != m.ID {
			return errs.Invalid("default", "model %q is already the default embedding model; set its default to false first", o.ID)
		}
	}
	return nil
}

// testEmbedding embeds one word and reports the vector's length.
func (r *Registry) testEmbedding(ctx context.Context, m llm.Model, res *TestResult) error {
	if r.embedder == nil {
		return errs.New(errs.ErrUnavailable, "embedding models cannot be tested in this process")
	}
	vecs, err := r.embedder.Embed(ctx, m, []string{"pong"})
	if err != nil {
		return err
	}
	if len(vecs) != 1 {
		return fmt.Errorf("the provider returned %d vectors for 1 text", len(vecs))
	}
	res.Dimensions = len(vecs[0])
	res.Reply = fmt.Sprintf("embedded %q into %d dimensions", "pong", res.Dimensions)
	return nil
}

// testRerank ranks two documents against a query.
func (r *Registry) testRerank(ctx context.Context, m llm.Model, res *TestResult) error {
	if r.reranker == nil {
		return errs.New(errs.ErrUnavailable, "rerank models cannot be tested in this process")
	}
	docs := []string{"The sky is blue.", "Ping pong is played with paddles."}
	ranked, err := r.reranker.Rerank(ctx, m, "ping pong", docs, len(docs))
	if err != nil {
		return err
	}
	if len(ranked) == 0 {
		return fmt.Errorf("the provider ranked no documents")
	}
	res.Reply = fmt.Sprintf("ranked %d documents; best: %q (score %.3f)", len(ranked), docs[ranked[0].Index], ranked[0].Score)
	return nil
}
