package sqlstore

import (
	"context"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/pergola-ai/pergola/domain/errs"
	"github.com/pergola-ai/pergola/domain/file"
)

func TestFileStore(t *testing.T) { forEachBackend(t, testFileStore) }

func testFileStore(t *testing.T, db *DB) {
	ctx := context.Background()
	store := db.Files()
	ada := newUser(t, db, "ada@x.io")
	ws := newWorkspace(t, db, "A", ada.ID)
	id := db.IDs().Next()
	f := &file.File{ID: id, WorkspaceID: ws.ID, UserID: ada.ID, Name: "cat ü.png", MimeType: "image/png", Bytes: 1234,
		SHA256: "9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08", StorageKey: file.StorageKey(ws.ID, id),
		CreatedAt: time.Date(2026, 1, 2, 3, 4, 5, 678_900_000, time.UTC)}
	mustNot(t, store.CreateFile(ctx, f))

	t.Run("get returns every field, the time to the millisecond", func(t *testing.T) {
		got, err := store.GetFile(ctx, id)
		mustNot(t, err)
		want := *f
		want.CreatedAt = time.Date(2026, 1, 2, 3, 4, 5, 678_000_000, time.UTC)
		if diff := cmp.Diff(&want, got); diff != "" {
			t.Errorf("GetFile (-want +got):\n%s", diff)
		}
		_, err = store.GetFile(ctx, 424242)
		wantErr(t, err, errs.ErrNotFound, "file 424242 not found")
	})
	t.Run("an unknown workspace is refused", func(t *testing.T) {
		err := store.CreateFile(ctx, &file.File{ID: db.IDs().Next(), WorkspaceID: 999, Name: "x", MimeType: "text/plain", StorageKey: "k"})
		wantErr(t, err, errs.ErrNotFound, "workspace 999")
	})
	t.Run("delete is scoped to the workspace", func(t *testing.T) {
		wantErr(t, store.DeleteFile(ctx, ws.ID+1, id), errs.ErrNotFound, "not found")
		mustNot(t, store.DeleteFile(ctx, ws.ID, id))
		_, err := store.GetFile(ctx, id)
		wantErr(t, err, errs.ErrNotFound, "not found")
	})
}
