package modelreg_test

import (
	"context"
	"errors"
	"sync/atomic"
	"testing"
	"time"

	"github.com/pergola-ai/pergola/application/invalidation"
	"github.com/pergola-ai/pergola/application/modelreg"
	"github.com/pergola-ai/pergola/domain/errs"
	"github.com/pergola-ai/pergola/domain/llm"
	"github.com/pergola-ai/pergola/infra/memory"
)

// countingStore counts the reads of one model that reach the database.
type countingStore struct {
	llm.ModelStore
	gets atomic.Int64
}

func (s *countingStore) GetModel(ctx context.Context, id string) (*llm.Model, error) {
	s.gets.Add(1)
	return s.ModelStore.GetModel(ctx, id)
}

// cachedProcess is one process's registry over the shared store, with
// its own cache kept fresh through bus.
func cachedProcess(t *testing.T, bus *memory.InvalidationBus, store llm.ModelStore) *modelreg.Registry {
	hub := invalidation.NewHub(bus, invalidation.Options{TTL: time.Minute})
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() { defer close(done); hub.Run(ctx) }()
	t.Cleanup(func() { cancel(); <-done })
	return modelreg.New(modelreg.NewCachedStore(store, hub, 10), nil, &fakeProber{})
}

// TestStoredModelsAreCachedAndChangesSeenEverywhere checks that a chat
// turn's model read stops reaching the database once warm, that a change
// or deletion on one process is seen at once on the other, and that an
// unknown model is not cached.
func TestStoredModelsAreCachedAndChangesSeenEverywhere(t *testing.T) {
	ctx := context.Background()
	_, shared := newRegistry(t, &fakeProber{})
	store := &countingStore{ModelStore: shared}
	bus := memory.NewInvalidationBus()
	a, b := cachedProcess(t, bus, store), cachedProcess(t, bus, store)
	for bus.Listeners() < 2 {
		time.Sleep(time.Millisecond)
	}
	for range 5 {
		if m, err := b.Get(ctx, "mid"); err != nil || m.APIKey != "sk-stored" {
			t.Fatalf("Get(mid) = %+v, %v", m, err)
		}
	}
	if n := store.gets.Load(); n != 1 {
		t.Fatalf("5 reads of a model reached the database %d times; want 1", n)
	}
	m2 := "m2"
	if _, err := a.Update(ctx, "mid", modelreg.Patch{Model: &m2}); err != nil {
		t.Fatal(err)
	}
	if m, _ := b.Get(ctx, "mid"); m == nil || m.Model != "m2" {
		t.Fatalf("after an update on a, b reads %+v; want model m2", m)
	}
	if err := a.Delete(ctx, "mid"); err != nil {
		t.Fatal(err)
	}
	if _, err := b.Get(ctx, "mid"); !errors.Is(err, errs.ErrNotFound) {
		t.Fatalf("after a delete on a, b reads %v; want not found", err)
	}
	before := store.gets.Load()
	_, _ = b.Get(ctx, "mid")
	if store.gets.Load() != before+1 {
		t.Fatal("an unknown model was cached")
	}
}
