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

func TestKnowledgeDocumentStore(t *testing.T) { forEachBackend(t, testKnowledgeDocumentStore) }

func testKnowledgeDocumentStore(t *testing.T, db *DB) {
	ctx := context.Background()
	store := db.Knowledge()
	ada := newUser(t, db, "ada@x.io")
	wsA := newWorkspace(t, db, "A", ada.ID)
	wsB := newWorkspace(t, db, "B", ada.ID)
	kb := newStoredBase(t, db, wsA.ID, ada.ID, "Docs")

	t.Run("create, get, list and count", func(t *testing.T) {
		a, b := textDoc(db, wsA.ID, kb.ID, "a.txt"), textDoc(db, wsA.ID, kb.ID, "b.txt")
		mustNot(t, store.CreateDocuments(ctx, []*knowledge.Document{a, b}, 10, time.Now().Add(time.Minute)))
		got, err := store.GetDocument(ctx, a.ID)
		mustNot(t, err)
		if diff := cmp.Diff(a, got); diff != "" {
			t.Errorf("GetDocument (-created +got):\n%s", diff)
		}
		list, total, err := store.ListDocuments(ctx, wsA.ID, kb.ID, identity.Page{Number: 1, Size: 10})
		mustNot(t, err)
		if total != 2 || len(list) != 2 {
			t.Fatalf("list = %d %d", total, len(list))
		}
		_, total, err = store.ListDocuments(ctx, wsB.ID, kb.ID, identity.Page{Number: 1, Size: 10})
		mustNot(t, err)
		if total != 0 {
			t.Fatalf("another workspace lists %d documents", total)
		}
		byID, err := store.DocumentsByID(ctx, wsB.ID, []int64{a.ID, b.ID})
		mustNot(t, err)
		if len(byID) != 0 {
			t.Fatalf("another workspace reads %d documents by id", len(byID))
		}
		counts, err := store.CountBases(ctx, wsA.ID, []int64{kb.ID})
		mustNot(t, err)
		want := knowledge.Counts{Documents: 2, Bytes: 10, Processing: sortedIDs(a.ID, b.ID)}
		if diff := cmp.Diff(want, counts[kb.ID]); diff != "" {
			t.Errorf("counts (-want +got):\n%s", diff)
		}
		mustNot(t, store.DeleteDocuments(ctx, wsA.ID, kb.ID, []int64{a.ID, b.ID}))
	})

	t.Run("the documents limit is checked with the new ones", func(t *testing.T) {
		docs := []*knowledge.Document{textDoc(db, wsA.ID, kb.ID, "1"), textDoc(db, wsA.ID, kb.ID, "2"), textDoc(db, wsA.ID, kb.ID, "3")}
		err := store.CreateDocuments(ctx, docs, 2, time.Now())
		wantErr(t, err, errs.ErrInvalid, "limit of 2")
		_, total, _ := store.ListDocuments(ctx, wsA.ID, kb.ID, identity.Page{})
		if total != 0 {
			t.Fatalf("a refused batch stored %d documents", total)
		}
		err = store.CreateDocuments(ctx, []*knowledge.Document{textDoc(db, wsB.ID, kb.ID, "x")}, 2, time.Now())
		wantErr(t, err, errs.ErrNotFound, "knowledge base")
	})

	t.Run("update keeps only name, rule and chunks", func(t *testing.T) {
		d := textDoc(db, wsA.ID, kb.ID, "old")
		mustNot(t, store.CreateDocuments(ctx, []*knowledge.Document{d}, 10, time.Now()))
		got, err := store.UpdateDocument(ctx, wsA.ID, d.ID, func(d *knowledge.Document) error {
			d.Name, d.Chunks, d.Status, d.Generation = "new", 7, knowledge.StatusReady, 9
			return nil
		})
		mustNot(t, err)
		if got.Name != "new" || got.Chunks != 7 || got.Status != knowledge.StatusProcessing || got.Generation != 0 {
			t.Fatalf("updated = %+v", got)
		}
		_, err = store.UpdateDocument(ctx, wsB.ID, d.ID, func(*knowledge.Document) error { return nil })
		wantErr(t, err, errs.ErrNotFound, "not found")
		mustNot(t, store.DeleteDocuments(ctx, wsA.ID, kb.ID, []int64{d.ID}))
	})

	t.Run("indexing is leased and generation-checked", func(t *testing.T) { testIndexingLeases(t, db, wsA.ID, kb.ID) })
	t.Run("due refreshes", func(t *testing.T) { testDueRefreshes(t, db, wsA.ID, kb.ID) })
}

func sortedIDs(a, b int64) []int64 {
	if a > b {
		a, b = b, a
	}
	return []int64{a, b}
}

func testIndexingLeases(t *testing.T, db *DB, ws, kb int64) {
	ctx := context.Background()
	store := db.Knowledge()
	now := time.Now().UTC()
	d := textDoc(db, ws, kb, "leased")
	mustNot(t, store.CreateDocuments(ctx, []*knowledge.Document{d}, 10, now.Add(time.Minute)))

	first, err := store.Claim(ctx, d.ID, "p1", now, now.Add(time.Minute))
	mustNot(t, err)
	if first.Generation != 1 || first.Attempts != 1 || first.StartedAt == nil {
		t.Fatalf("first claim = %+v", first)
	}
	_, err = store.Claim(ctx, d.ID, "p2", now, now.Add(time.Minute))
	wantErr(t, err, errs.ErrConflict, "not waiting")
	mustNot(t, store.Progress(ctx, d.ID, 1, 40, 4, now.Add(time.Minute)))

	later := now.Add(2 * time.Minute) // p1's lease has expired
	expired, err := store.Expired(ctx, later, 10)
	mustNot(t, err)
	if len(expired) != 1 || expired[0].ID != d.ID || expired[0].Attempts != 1 {
		t.Fatalf("expired = %+v", expired)
	}
	mustNot(t, store.Release(ctx, d.ID, 1, later, later.Add(time.Minute)))
	wantErr(t, store.Release(ctx, d.ID, 1, later, later.Add(time.Minute)), errs.ErrConflict, "taken")
	second, err := store.Claim(ctx, d.ID, "p2", later, later.Add(time.Minute))
	mustNot(t, err)
	if second.Generation != 2 || second.Attempts != 2 || second.Progress != 0 {
		t.Fatalf("second claim = %+v", second)
	}

	// The stalled first worker wakes up: none of its writes land.
	wantErr(t, store.Progress(ctx, d.ID, 1, 90, 9, later.Add(time.Hour)), errs.ErrConflict, "newer attempt")
	wantErr(t, store.Finish(ctx, d.ID, 1, knowledge.Outcome{Status: knowledge.StatusReady, Chunks: 9}, later), errs.ErrConflict, "newer attempt")

	mustNot(t, store.Finish(ctx, d.ID, 2, knowledge.Outcome{Status: knowledge.StatusReady, Chunks: 3}, later))
	got, err := store.GetDocument(ctx, d.ID)
	mustNot(t, err)
	if got.Status != knowledge.StatusReady || got.Chunks != 3 || got.Progress != 100 || got.RefreshedAt == nil {
		t.Fatalf("finished = %+v", got)
	}
	expired, err = store.Expired(ctx, later.Add(time.Hour), 10)
	mustNot(t, err)
	if len(expired) != 0 {
		t.Fatalf("a finished document is expired: %+v", expired)
	}
	_, err = store.Claim(ctx, d.ID, "p3", later, later.Add(time.Minute))
	wantErr(t, err, errs.ErrConflict, "not waiting")

	again, err := store.Requeue(ctx, ws, d.ID, later, later.Add(time.Minute))
	mustNot(t, err)
	if again.Status != knowledge.StatusProcessing || again.Chunks != 0 {
		t.Fatalf("requeued = %+v", again)
	}
	_, err = store.Requeue(ctx, ws, d.ID, later, later.Add(time.Minute))
	wantErr(t, err, errs.ErrConflict, "being indexed")
	third, err := store.Claim(ctx, d.ID, "p3", later, later.Add(time.Minute))
	mustNot(t, err)
	if third.Generation != 3 || third.Attempts != 1 {
		t.Fatalf("claim after a requeue = %+v", third)
	}
	mustNot(t, store.Finish(ctx, d.ID, 3, knowledge.Outcome{Status: knowledge.StatusFailed, Reason: "bad pdf"}, later))
	got, _ = store.GetDocument(ctx, d.ID)
	if got.Status != knowledge.StatusFailed || got.Reason != "bad pdf" {
		t.Fatalf("failed = %+v", got)
	}
	mustNot(t, store.DeleteDocuments(ctx, ws, kb, []int64{d.ID}))
	wantErr(t, store.Progress(ctx, d.ID, 3, 1, 1, later), errs.ErrNotFound, "not found")
}

func testDueRefreshes(t *testing.T, db *DB, ws, kb int64) {
	ctx := context.Background()
	store := db.Knowledge()
	now := time.Now().UTC()
	web := textDoc(db, ws, kb, "page")
	web.Source, web.URL, web.UpdateRule = knowledge.SourceWeb, "https://example.com/", knowledge.UpdateRule{Auto: true, IntervalHours: 2}
	manual := textDoc(db, ws, kb, "manual")
	manual.Source, manual.URL = knowledge.SourceWeb, "https://example.com/m"
	mustNot(t, store.CreateDocuments(ctx, []*knowledge.Document{web, manual}, 10, now))
	for _, d := range []*knowledge.Document{web, manual} {
		c, err := store.Claim(ctx, d.ID, "p", now, now.Add(time.Minute))
		mustNot(t, err)
		mustNot(t, store.Finish(ctx, d.ID, c.Generation, knowledge.Outcome{Status: knowledge.StatusReady, Chunks: 1}, now))
	}
	due, err := store.DueRefreshes(ctx, now.Add(time.Hour), 10)
	mustNot(t, err)
	if len(due) != 0 {
		t.Fatalf("due after 1h of 2h = %+v", due)
	}
	due, err = store.DueRefreshes(ctx, now.Add(2*time.Hour+time.Second), 10)
	mustNot(t, err)
	if len(due) != 1 || due[0].ID != web.ID {
		t.Fatalf("due after 2h = %+v", due)
	}
}
