package sqlstore

import (
	"context"
	"testing"
	"time"

	"github.com/pergola-ai/pergola/domain/trace"
)

func TestTraceStore(t *testing.T) { forEachBackend(t, testTraceStore) }

func testTraceStore(t *testing.T, db *DB) {
	ctx := context.Background()
	store := db.Traces()
	ada := newUser(t, db, "ada@x.io")
	ws := newWorkspace(t, db, "A", ada.ID)
	other := newWorkspace(t, db, "B", ada.ID)
	at := time.Date(2026, 1, 2, 3, 4, 5, 678_900_000, time.UTC)
	big := `{"name":"` + bigText(70_000) + `"}`
	recs := []trace.Record{
		{TraceID: 7, WorkspaceID: ws.ID, Kind: "chat", CreatedAt: at.Add(time.Second), Tree: []byte(`{"name":"second"}`)},
		{TraceID: 7, WorkspaceID: ws.ID, Kind: "chat", CreatedAt: at, Tree: []byte(big)},
		{TraceID: 8, WorkspaceID: other.ID, Kind: "workflow", CreatedAt: at, Tree: []byte(`{"name":"w"}`)},
		{TraceID: 9, WorkspaceID: 0, Kind: "chat", CreatedAt: at, Tree: []byte(`{}`)},
	}
	mustNot(t, store.SaveTraces(ctx, recs))

	t.Run("records come back oldest first, whole, to the millisecond", func(t *testing.T) {
		got, err := store.TraceRecords(ctx, 7)
		mustNot(t, err)
		if len(got) != 2 || string(got[0].Tree) != big || string(got[1].Tree) != `{"name":"second"}` {
			t.Fatalf("trace 7: %d records, first %d bytes", len(got), len(got[0].Tree))
		}
		if got[0].WorkspaceID != ws.ID || got[0].Kind != "chat" || !got[0].CreatedAt.Equal(at.Truncate(time.Millisecond)) {
			t.Errorf("first record: %+v", got[0])
		}
	})
	t.Run("unknown and workspace-less traces have no records", func(t *testing.T) {
		for _, id := range []int64{9, 404} {
			got, err := store.TraceRecords(ctx, id)
			mustNot(t, err)
			if len(got) != 0 {
				t.Errorf("trace %d: %d records, want none", id, len(got))
			}
		}
	})
	t.Run("a batch with a deleted workspace keeps the others", func(t *testing.T) {
		err := store.SaveTraces(ctx, []trace.Record{
			{TraceID: 10, WorkspaceID: 999_999, Kind: "chat", CreatedAt: at, Tree: []byte(`{}`)},
			{TraceID: 11, WorkspaceID: ws.ID, Kind: "chat", CreatedAt: at, Tree: []byte(`{"name":"kept"}`)},
		})
		mustNot(t, err)
		got, err := store.TraceRecords(ctx, 11)
		mustNot(t, err)
		if len(got) != 1 || string(got[0].Tree) != `{"name":"kept"}` {
			t.Errorf("trace 11: %+v", got)
		}
	})
	t.Run("records stored before a time are deleted, up to a limit a call", func(t *testing.T) {
		mustNot(t, store.SaveTraces(ctx, []trace.Record{
			{TraceID: 12, WorkspaceID: ws.ID, Kind: "chat", CreatedAt: at.Add(-2 * time.Hour), Tree: []byte(`{}`)},
			{TraceID: 12, WorkspaceID: ws.ID, Kind: "chat", CreatedAt: at.Add(-time.Hour), Tree: []byte(`{}`)},
			{TraceID: 13, WorkspaceID: ws.ID, Kind: "chat", CreatedAt: at.Add(time.Hour), Tree: []byte(`{}`)},
		}))
		n, err := store.DeleteTracesBefore(ctx, at, 1)
		mustNot(t, err)
		if got, _ := store.TraceRecords(ctx, 12); n != 1 || len(got) != 1 {
			t.Fatalf("deleted %d, trace 12 keeps %d records; want 1 and 1", n, len(got))
		}
		n, err = store.DeleteTracesBefore(ctx, at, 100)
		mustNot(t, err)
		if got, _ := store.TraceRecords(ctx, 12); n != 1 || len(got) != 0 {
			t.Fatalf("second call deleted %d, trace 12 keeps %d", n, len(got))
		}
		for _, id := range []int64{7, 11, 13} { // at or after the time: kept
			if got, _ := store.TraceRecords(ctx, id); len(got) == 0 {
				t.Errorf("trace %d was deleted", id)
			}
		}
	})
	t.Run("deleting the workspace deletes its traces", func(t *testing.T) {
		mustNot(t, db.Workspaces().DeleteWorkspace(ctx, other.ID))
		got, err := store.TraceRecords(ctx, 8)
		mustNot(t, err)
		if len(got) != 0 {
			t.Errorf("trace 8 kept %d records", len(got))
		}
	})
}

func bigText(n int) string {
	b := make([]byte, n)
	for i := range b {
		b[i] = 'a' + byte(i%26)
	}
	return string(b)
}
