package sqlstore

import (
	"context"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/pergola-ai/pergola/domain/errs"
	"github.com/pergola-ai/pergola/domain/plugin"
)

func testPluginCatalog(t *testing.T, db *DB, ws, creator int64) {
	ctx := context.Background()
	store := db.Plugins()
	b := &plugin.Plugin{ID: 21, Name: "calc", Description: "v1", Draft: plugin.Spec{Source: "m1", Tools: []plugin.Tool{{Name: "eval"}}}}
	mustNot(t, store.SyncBuiltin(ctx, b))
	got, err := store.GetPlugin(ctx, 21)
	mustNot(t, err)
	if !got.IsCatalog() || got.Kind != plugin.KindBuiltin || !got.Enabled || got.PublishedVersion != 1 {
		t.Fatalf("built-in = %+v", got)
	}
	_, err = store.SetGovernance(ctx, 21, func(x *plugin.Plugin) error { x.Enabled = false; return nil })
	mustNot(t, err)
	b.Description, b.Draft = "v2", plugin.Spec{Source: "m2", Tools: []plugin.Tool{{Name: "eval"}, {Name: "round"}}}
	mustNot(t, store.SyncBuiltin(ctx, b))
	got, _ = store.GetPlugin(ctx, 21)
	v, _ := store.GetVersion(ctx, 21, 1)
	src, _ := store.GetSource(ctx, 21, 1)
	if got.Enabled || got.Description != "v2" || len(got.Draft.Tools) != 2 || len(v.Spec.Tools) != 2 || src != "m2" {
		t.Errorf("after a resync: %+v, version %+v, source %q", got, v, src)
	}
	p := newStoredPlugin(t, db, ws, creator, "Squatter")
	err = store.SyncBuiltin(ctx, &plugin.Plugin{ID: p.ID, Name: "x"})
	wantErr(t, err, errs.ErrConflict, "is taken by a plugin of workspace")
	_, err = store.UpdatePlugin(ctx, ws, 21, func(*plugin.Plugin) error { return nil })
	wantErr(t, err, errs.ErrNotFound, "plugin 21 not found")
}

func testPluginStats(t *testing.T, db *DB, ws, creator int64) {
	ctx := context.Background()
	store := db.Plugins()
	p := newStoredPlugin(t, db, ws, creator, "Counted")
	t0 := time.Date(2025, 3, 1, 10, 0, 0, 0, time.UTC)
	errAt := t0.Add(time.Second)
	var wg sync.WaitGroup
	for i := range 5 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			b := plugin.ToolStats{PluginID: p.ID, Tool: "getPet", Calls: 2, TotalLatency: 30 * time.Millisecond,
				MaxLatency: time.Duration(10+i) * time.Millisecond, LastCalledAt: t0.Add(time.Duration(i) * time.Second)}
			if i == 1 {
				b.Errors, b.LastError, b.LastErrorAt = 1, "HTTP 500", &errAt
			}
			if err := store.AddStats(ctx, []plugin.ToolStats{b}); err != nil {
				t.Error(err)
			}
		}()
	}
	wg.Wait()
	mustNot(t, store.AddStats(ctx, []plugin.ToolStats{{PluginID: 123456, Tool: "gone", Calls: 1, LastCalledAt: t0}}))
	got, err := store.ListStats(ctx, []int64{p.ID})
	mustNot(t, err)
	want := []plugin.ToolStats{{PluginID: p.ID, Tool: "getPet", Calls: 10, Errors: 1, TotalLatency: 150 * time.Millisecond,
		MaxLatency: 14 * time.Millisecond, LastCalledAt: t0.Add(4 * time.Second), LastError: "HTTP 500", LastErrorAt: &errAt}}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("stats (-want +got):\n%s", diff)
	}
	if got[0].MeanLatency() != 15*time.Millisecond {
		t.Errorf("mean = %v", got[0].MeanLatency())
	}
}

// TestCatalogSyncedByProcessesStartingTogether checks that processes
// syncing the built-ins into an empty catalog at the same moment all
// succeed (on InnoDB the losers deadlock on the absent rows' gap locks).
func TestCatalogSyncedByProcessesStartingTogether(t *testing.T) {
	forEachBackend(t, func(t *testing.T, db *DB) {
		ctx := context.Background()
		var wg sync.WaitGroup
		errc := make(chan error, 4*8)
		for range 4 {
			wg.Add(1)
			go func() {
				defer wg.Done()
				for id := int64(31); id < 39; id++ {
					errc <- db.Plugins().SyncBuiltin(ctx, &plugin.Plugin{ID: id, Name: "b", Draft: plugin.Spec{Source: "m"}})
				}
			}()
		}
		wg.Wait()
		close(errc)
		for err := range errc {
			mustNot(t, err)
		}
	})
}
