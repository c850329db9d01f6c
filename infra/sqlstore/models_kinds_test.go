package sqlstore

import (
	"context"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/pergola-ai/pergola/domain/llm"
)

func TestModelKinds(t *testing.T) { forEachBackend(t, testModelKinds) }

func testModelKinds(t *testing.T, db *DB) {
	ctx := context.Background()
	models := db.Models()
	emb := &llm.Model{
		ID: "text-embedding-3-small", Name: "Embeddings", Provider: llm.ProviderOpenAI, APIKey: "sk-e",
		Model: "text-embedding-3-small", Kind: llm.KindEmbedding, Dimensions: 512, Default: true,
		Enabled: true, Source: llm.SourceAdmin,
	}
	rr := &llm.Model{ID: "jina-rerank", Provider: llm.ProviderOpenAI, Model: "jina-reranker-v2", Kind: llm.KindRerank,
		Enabled: true, Source: llm.SourceAdmin}
	mustNot(t, models.CreateModel(ctx, emb))
	mustNot(t, models.CreateModel(ctx, rr))

	got, err := models.GetModel(ctx, emb.ID)
	mustNot(t, err)
	if diff := cmp.Diff(emb, got); diff != "" {
		t.Errorf("embedding model (-created +got):\n%s", diff)
	}
	list, err := models.ListModels(ctx)
	mustNot(t, err)
	if len(list) != 2 || list[0].Kind != llm.KindRerank || list[1].Kind != llm.KindEmbedding || !list[1].Default {
		t.Errorf("ListModels = %+v; want the rerank and the default embedding model", list)
	}

	changed, err := models.UpdateModel(ctx, emb.ID, func(m *llm.Model) error {
		m.Dimensions, m.Default = 0, false
		return nil
	})
	mustNot(t, err)
	again, err := models.GetModel(ctx, emb.ID)
	mustNot(t, err)
	if again.Dimensions != 0 || again.Default || again.Kind != llm.KindEmbedding || changed.Default {
		t.Errorf("after update: %+v; want dimensions 0, not default, still embedding", again)
	}
}

// TestModelRowsBeforeKindsAreChat: a row written without the columns of
// migration 21, as every row before it was, reads as a chat model.
func TestModelRowsBeforeKindsAreChat(t *testing.T) {
	forEachBackend(t, func(t *testing.T, db *DB) {
		now := time.Now().UTC()
		mustNot(t, db.Gorm().Exec(`INSERT INTO models (id, name, provider, base_url, api_key, api_key_env, model,
			capabilities, context_window, enabled, source, created_at, updated_at)
			VALUES ('old', 'Old', 'openai', '', '', '', 'gpt', '{}', 0, true, 'admin', ?, ?)`, now, now).Error)
		m, err := db.Models().GetModel(context.Background(), "old")
		mustNot(t, err)
		if m.Kind != llm.KindChat || m.Dimensions != 0 || m.Default {
			t.Errorf("old row reads as %+v; want kind chat, no dimensions, not default", m)
		}
	})
}
