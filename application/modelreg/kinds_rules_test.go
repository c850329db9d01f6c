package modelreg_test

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/pergola-ai/pergola/application/modelreg"
	"github.com/pergola-ai/pergola/domain/errs"
	"github.com/pergola-ai/pergola/domain/llm"
	"github.com/pergola-ai/pergola/infra/fakellm"
	"github.com/pergola-ai/pergola/infra/provider"
)

func embedding(id string, def bool) llm.Model {
	return llm.Model{ID: id, Provider: llm.ProviderOpenAI, Model: "text-embedding-3-small", Kind: llm.KindEmbedding,
		Default: def, Enabled: true}
}

func TestDefaultEmbedding(t *testing.T) {
	ctx := context.Background()
	r, _ := newRegistry(t, &fakeProber{})

	_, err := r.DefaultEmbedding(ctx)
	if !errors.Is(err, errs.ErrInvalid) || !strings.Contains(err.Error(), "embedding_model") || !strings.Contains(err.Error(), `kind "embedding"`) {
		t.Fatalf("no embedding model: %v; want invalid embedding_model telling to add a model of kind embedding", err)
	}
	mustCreate(t, r, embedding("emb-a", false))
	if m, err := r.DefaultEmbedding(ctx); err != nil || m.ID != "emb-a" {
		t.Fatalf("the only embedding model: %v, %v; want emb-a", m, err)
	}
	mustCreate(t, r, embedding("emb-b", false))
	_, err = r.DefaultEmbedding(ctx)
	if !errors.Is(err, errs.ErrInvalid) || !strings.Contains(err.Error(), "emb-a, emb-b") || !strings.Contains(err.Error(), "default") {
		t.Fatalf("two without a default: %v; want invalid naming both and default", err)
	}
	yes := true
	if _, err := r.Update(ctx, "emb-b", modelreg.Patch{Default: &yes}); err != nil {
		t.Fatal(err)
	}
	if m, err := r.DefaultEmbedding(ctx); err != nil || m.ID != "emb-b" {
		t.Fatalf("with emb-b default: %v, %v", m, err)
	}
	no := false
	if _, err := r.Update(ctx, "emb-b", modelreg.Patch{Enabled: &no}); err != nil {
		t.Fatal(err)
	}
	if m, err := r.DefaultEmbedding(ctx); err != nil || m.ID != "emb-a" {
		t.Fatalf("with the default disabled: %v, %v; want the only enabled one, emb-a", m, err)
	}
	chats, err := r.ByKind(ctx, llm.KindChat)
	if err != nil || strings.Join(ids(chats), ",") != "alpha,mid,zeta" {
		t.Errorf("ByKind(chat) = %v, %v; want alpha,mid,zeta", ids(chats), err)
	}
}

func mustCreate(t *testing.T, r *modelreg.Registry, m llm.Model) {
	t.Helper()
	if _, err := r.Create(context.Background(), m); err != nil {
		t.Fatalf("create %s: %v", m.ID, err)
	}
}

func TestAtMostOneDefaultEmbedding(t *testing.T) {
	ctx := context.Background()
	r, _ := newRegistry(t, &fakeProber{})
	mustCreate(t, r, embedding("first", true))
	_, err := r.Create(ctx, embedding("second", true))
	if !errors.Is(err, errs.ErrInvalid) || !strings.Contains(err.Error(), "default") || !strings.Contains(err.Error(), `"first"`) {
		t.Fatalf("second default on create: %v; want invalid default naming first", err)
	}
	mustCreate(t, r, embedding("second", false))
	yes := true
	if _, err := r.Update(ctx, "second", modelreg.Patch{Default: &yes}); !errors.Is(err, errs.ErrInvalid) {
		t.Fatalf("second default on update: %v; want invalid", err)
	}
	if _, err := r.Update(ctx, "first", modelreg.Patch{Default: &yes}); err != nil {
		t.Fatalf("setting the default on the default again: %v", err)
	}
}

func TestKindRules(t *testing.T) {
	ctx := context.Background()
	r, _ := newRegistry(t, &fakeProber{})
	for _, c := range []struct {
		name, field string
		m           llm.Model
	}{
		{"unknown kind", "kind", llm.Model{ID: "x", Provider: llm.ProviderOpenAI, Model: "m", Kind: "image"}},
		{"gemini embedding", "kind", llm.Model{ID: "x", Provider: llm.ProviderGemini, Model: "m", Kind: llm.KindEmbedding}},
		{"negative dimensions", "dimensions", llm.Model{ID: "x", Provider: llm.ProviderOpenAI, Model: "m", Kind: llm.KindEmbedding, Dimensions: -1}},
		{"dimensions on chat", "dimensions", llm.Model{ID: "x", Provider: llm.ProviderOpenAI, Model: "m", Dimensions: 8}},
		{"default rerank", "default", llm.Model{ID: "x", Provider: llm.ProviderOpenAI, Model: "m", Kind: llm.KindRerank, Default: true}},
	} {
		_, err := r.Create(ctx, c.m)
		var ie *errs.FieldError
		if !errors.As(err, &ie) || ie.Field != c.field {
			t.Errorf("%s: %v; want invalid %s", c.name, err, c.field)
		}
	}
	m, err := r.Create(ctx, llm.Model{ID: "plain", Provider: llm.ProviderOpenAI, Model: "m"})
	if err != nil || m.Kind != llm.KindChat {
		t.Errorf("no kind: %+v, %v; want kind chat", m, err)
	}
}

func TestTestEmbeddingAndRerankModels(t *testing.T) {
	ctx := context.Background()
	s := fakellm.Start(t)
	f := provider.Factory{}
	p := &fakeProber{}
	_, store := newRegistry(t, p)
	r := modelreg.New(store, []llm.Model{
		{ID: "emb", Provider: llm.ProviderOpenAI, BaseURL: s.BaseURL(), Model: "m", Kind: llm.KindEmbedding, Dimensions: 64, Enabled: true},
		{ID: "rr", Provider: llm.ProviderOpenAI, BaseURL: s.BaseURL(), Model: "m", Kind: llm.KindRerank, Enabled: true},
	}, p, modelreg.WithEmbedder(f), modelreg.WithReranker(f))
	res, err := r.Test(ctx, "emb")
	if err != nil || !res.OK || res.Dimensions != 64 {
		t.Fatalf("test embedding model: %+v, %v; want OK with 64 dimensions", res, err)
	}
	res, err = r.Test(ctx, "rr")
	if err != nil || !res.OK || !strings.Contains(res.Reply, "Ping pong") {
		t.Fatalf("test rerank model: %+v, %v; want OK, the ping pong text best", res, err)
	}
	s.FailEmbeddings(10, fakellm.EmbedFault{Status: 400})
	if res, _ := r.Test(ctx, "emb"); res.OK || !strings.Contains(res.Error, "HTTP 400") {
		t.Fatalf("failing embedding model: %+v; want not OK with the provider's status", res)
	}
	if len(p.got) != 0 {
		t.Errorf("the chat prober was called for embedding or rerank models")
	}
}
