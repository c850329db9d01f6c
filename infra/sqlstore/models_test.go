package sqlstore

import (
	"context"
	"errors"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/pergola-ai/pergola/domain/errs"
	"github.com/pergola-ai/pergola/domain/llm"
)

func TestModelStore(t *testing.T) { forEachBackend(t, testModelStore) }

func testModelStore(t *testing.T, db *DB) {
	ctx := context.Background()
	models := db.Models()
	gpt := &llm.Model{
		ID: "gpt-4o", Name: "GPT-4o", Provider: llm.ProviderOpenAI, BaseURL: "https://api.openai.com/v1",
		APIKey: "sk-plaintext-key", Model: "gpt-4o", Capabilities: llm.Capabilities{Tools: true, Vision: true},
		ContextWindow: 128000, Enabled: true, Source: llm.SourceAdmin,
	}
	mustNot(t, models.CreateModel(ctx, gpt))

	t.Run("get", func(t *testing.T) {
		got, err := models.GetModel(ctx, "gpt-4o")
		mustNot(t, err)
		if diff := cmp.Diff(gpt, got); diff != "" {
			t.Errorf("GetModel (-created +got):\n%s", diff)
		}
		_, err = models.GetModel(ctx, "nope")
		wantErr(t, err, errs.ErrNotFound, "model nope not found")
	})

	t.Run("api key is encrypted at rest", func(t *testing.T) {
		if raw := rawAPIKey(t, db, "gpt-4o"); !strings.HasPrefix(raw, "v1:") || strings.Contains(raw, "plaintext") {
			t.Errorf("stored api_key = %q, want sealed text", raw)
		}
	})

	t.Run("ids are exact and unique", func(t *testing.T) {
		err := models.CreateModel(ctx, &llm.Model{ID: "gpt-4o", Provider: llm.ProviderOpenAI, Model: "x"})
		wantErr(t, err, errs.ErrConflict, `model id "gpt-4o" is already taken`)
		mustNot(t, models.CreateModel(ctx, &llm.Model{ID: "GPT-4o", Provider: llm.ProviderOpenAI, Model: "x", Source: llm.SourceAdmin}))
		if raw := rawAPIKey(t, db, "GPT-4o"); raw != "" {
			t.Errorf("stored empty api_key as %q, want empty", raw)
		}
	})

	t.Run("update", func(t *testing.T) {
		got, err := models.UpdateModel(ctx, "gpt-4o", func(m *llm.Model) error {
			m.APIKey, m.Capabilities.JSON, m.Enabled = "sk-rotated", true, false
			m.ID = "renamed" // ignored
			return nil
		})
		mustNot(t, err)
		stored, err := models.GetModel(ctx, "gpt-4o")
		mustNot(t, err)
		if diff := cmp.Diff(got, stored); diff != "" {
			t.Errorf("stored model (-returned +stored):\n%s", diff)
		}
		if stored.APIKey != "sk-rotated" || !stored.Capabilities.JSON || stored.Enabled {
			t.Errorf("update not stored: %+v", stored)
		}
		if raw := rawAPIKey(t, db, "gpt-4o"); strings.Contains(raw, "rotated") {
			t.Errorf("stored api_key = %q, want sealed text", raw)
		}

		_, err = models.UpdateModel(ctx, "gpt-4o", func(m *llm.Model) error { m.APIKey = "lost"; return errFromFn })
		if err != errFromFn {
			t.Fatalf("UpdateModel error = %v, want fn's own error", err)
		}
		again, _ := models.GetModel(ctx, "gpt-4o")
		if diff := cmp.Diff(stored, again); diff != "" {
			t.Errorf("model changed though fn failed (-before +after):\n%s", diff)
		}
		_, err = models.UpdateModel(ctx, "nope", func(*llm.Model) error { return nil })
		wantErr(t, err, errs.ErrNotFound, "model nope not found")
	})

	t.Run("list and delete", func(t *testing.T) {
		list, err := models.ListModels(ctx)
		mustNot(t, err)
		if len(list) != 2 || list[0].ID != "GPT-4o" || list[1].ID != "gpt-4o" {
			t.Fatalf("ListModels = %v, want GPT-4o then gpt-4o", list)
		}
		mustNot(t, models.DeleteModel(ctx, "GPT-4o"))
		wantErr(t, models.DeleteModel(ctx, "GPT-4o"), errs.ErrNotFound, "model GPT-4o not found")
		if _, err := models.GetModel(ctx, "gpt-4o"); err != nil {
			t.Errorf("deleting GPT-4o touched gpt-4o: %v", err)
		}
	})
}

// rawAPIKey reads the api_key column as stored.
func rawAPIKey(t *testing.T, db *DB, id string) string {
	t.Helper()
	var raw string
	mustNot(t, db.Gorm().Raw("SELECT api_key FROM models WHERE id = ?", id).Scan(&raw).Error)
	return raw
}

func TestModelStoreWithoutCipher(t *testing.T) {
	ctx := context.Background()
	db, err := Open(ctx, Config{SQLitePath: filepath.Join(t.TempDir(), "p.db")})
	mustNot(t, err)
	defer db.Close()
	_, err = db.Migrate(ctx)
	mustNot(t, err)

	err = db.Models().CreateModel(ctx, &llm.Model{ID: "k", Provider: llm.ProviderOpenAI, Model: "m", APIKey: "sk"})
	if !errors.Is(err, errNoCipher) {
		t.Errorf("CreateModel with a key and no cipher: %v, want errNoCipher", err)
	}
	mustNot(t, db.Models().CreateModel(ctx, &llm.Model{ID: "nokey", Provider: llm.ProviderOpenAI, Model: "m"}))
	if _, err := db.Models().GetModel(ctx, "nokey"); err != nil {
		t.Errorf("GetModel of a keyless model without a cipher: %v", err)
	}
}
