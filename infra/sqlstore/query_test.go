package sqlstore

import (
	"context"
	"sync"
	"testing"
	"time"

	"github.com/pergola-ai/pergola/domain/table"
)

// TestUpdateReturnsTheStoredTime: with a clock that moves a millisecond
// between readings, an update still answers the UpdatedAt it stored
// (gorm used to write its own, later reading).
func TestUpdateReturnsTheStoredTime(t *testing.T) {
	forEachBackend(t, func(t *testing.T, db *DB) {
		ada := newUser(t, db, "ada@x.io")
		ws := newWorkspace(t, db, "A", ada.ID)
		tb := newStoredTable(t, db, ws.ID, ada.ID, "notes")
		var mu sync.Mutex
		clock := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
		db.now = func() time.Time {
			mu.Lock()
			defer mu.Unlock()
			clock = clock.Add(time.Millisecond)
			return clock
		}
		defer func() { db.now = time.Now }()
		got, err := db.Tables().UpdateTable(context.Background(), ws.ID, tb.ID, func(c *table.Table) error {
			c.Name = "memos"
			return nil
		})
		mustNot(t, err)
		reread, err := db.Tables().GetTable(context.Background(), tb.ID)
		mustNot(t, err)
		if !got.UpdatedAt.Equal(reread.UpdatedAt) {
			t.Fatalf("update answered %s, the database holds %s", got.UpdatedAt, reread.UpdatedAt)
		}
	})
}
