package sqlstore

import (
	"context"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/pergola-ai/pergola/domain/errs"
	"github.com/pergola-ai/pergola/domain/identity"
	"github.com/pergola-ai/pergola/domain/knowledge"
)

func TestKnowledgeBaseStore(t *testing.T) { forEachBackend(t, testKnowledgeBaseStore) }

func newStoredBase(t *testing.T, db *DB, ws, creator int64, name string) *knowledge.Base {
	t.Helper()
	b := &knowledge.Base{WorkspaceID: ws, CreatorID: creator, Name: name, Description: "docs", Format: knowledge.FormatText,
		EmbeddingModel: "embed", Dimensions: 64, ChunkStrategy: knowledge.ChunkStrategy{Type: knowledge.ChunkCustom, Separator: "##", MaxTokens: 300}}
	mustNot(t, db.Knowledge().CreateBase(context.Background(), b))
	return b
}

func testKnowledgeBaseStore(t *testing.T, db *DB) {
	ctx := context.Background()
	store := db.Knowledge()
	ada := newUser(t, db, "ada@x.io")
	wsA := newWorkspace(t, db, "A", ada.ID)
	wsB := newWorkspace(t, db, "B", ada.ID)

	t.Run("create and get keep every field", func(t *testing.T) {
		b := newStoredBase(t, db, wsA.ID, ada.ID, "Handbook")
		got, err := store.GetBase(ctx, b.ID)
		mustNot(t, err)
		if diff := cmp.Diff(b, got); diff != "" {
			t.Errorf("GetBase (-created +got):\n%s", diff)
		}
		_, err = store.GetBase(ctx, 4242)
		wantErr(t, err, errs.ErrNotFound, "knowledge base 4242 not found")
		err = store.CreateBase(ctx, &knowledge.Base{WorkspaceID: 777, Name: "x"})
		wantErr(t, err, errs.ErrNotFound, "workspace 777 not found")
	})

	t.Run("list filters by name and format, pages, stays in the workspace", func(t *testing.T) {
		newStoredBase(t, db, wsA.ID, ada.ID, "Price list 100%")
		newStoredBase(t, db, wsB.ID, ada.ID, "Handbook B")
		list, total, err := store.ListBases(ctx, wsA.ID, knowledge.ListFilter{}, identity.Page{Number: 1, Size: 1})
		mustNot(t, err)
		if total != 2 || len(list) != 1 || list[0].Name != "Price list 100%" {
			t.Fatalf("page 1 = %d %+v", total, list)
		}
		list, total, err = store.ListBases(ctx, wsA.ID, knowledge.ListFilter{Name: "hand"}, identity.Page{})
		mustNot(t, err)
		if total != 1 || list[0].Name != "Handbook" {
			t.Fatalf("name filter = %d %+v", total, list)
		}
		_, total, err = store.ListBases(ctx, wsA.ID, knowledge.ListFilter{Name: "0%"}, identity.Page{})
		mustNot(t, err)
		if total != 1 {
			t.Fatalf("a %% in the filter matches %d bases, want the one named with it", total)
		}
		table := knowledge.FormatTable
		_, total, err = store.ListBases(ctx, wsA.ID, knowledge.ListFilter{Format: &table}, identity.Page{})
		mustNot(t, err)
		if total != 0 {
			t.Fatalf("format filter = %d", total)
		}
	})

	t.Run("update keeps the model and stays in the workspace", func(t *testing.T) {
		b := newStoredBase(t, db, wsA.ID, ada.ID, "Old")
		got, err := store.UpdateBase(ctx, wsA.ID, b.ID, func(b *knowledge.Base) error {
			b.Name, b.EmbeddingModel, b.Dimensions = "New", "other", 3
			return nil
		})
		mustNot(t, err)
		again, err := store.GetBase(ctx, b.ID)
		mustNot(t, err)
		if got.Name != "New" || again.Name != "New" || again.EmbeddingModel != "embed" || again.Dimensions != 64 {
			t.Fatalf("updated = %+v, stored = %+v", got, again)
		}
		_, err = store.UpdateBase(ctx, wsB.ID, b.ID, func(*knowledge.Base) error { return nil })
		wantErr(t, err, errs.ErrNotFound, "not found")
	})

	t.Run("delete removes the documents too and stays in the workspace", func(t *testing.T) {
		b := newStoredBase(t, db, wsA.ID, ada.ID, "Doomed")
		d := textDoc(db, wsA.ID, b.ID, "a.txt")
		mustNot(t, store.CreateDocuments(ctx, []*knowledge.Document{d}, 10, time.Now()))
		wantErr(t, store.DeleteBase(ctx, wsB.ID, b.ID), errs.ErrNotFound, "not found")
		mustNot(t, store.DeleteBase(ctx, wsA.ID, b.ID))
		_, err := store.GetDocument(ctx, d.ID)
		wantErr(t, err, errs.ErrNotFound, "not found")
		wantErr(t, store.DeleteBase(ctx, wsA.ID, b.ID), errs.ErrNotFound, "not found")
	})
}

func textDoc(db *DB, ws, kb int64, name string) *knowledge.Document {
	return &knowledge.Document{ID: db.ids.Next(), WorkspaceID: ws, KnowledgeID: kb, CreatorID: 1, Name: name,
		Source: knowledge.SourceText, Text: "hello", FileType: "txt", Size: 5, Status: knowledge.StatusProcessing,
		Columns: []knowledge.Column{{Name: "q", Indexed: true}}, Strategy: knowledge.ChunkStrategy{MaxTokens: 200}}
}
