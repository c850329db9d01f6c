package modelreg

import (
	"context"

	"github.com/pergola-ai/pergola/application/invalidation"
	"github.com/pergola-ai/pergola/domain/llm"
)

// modelTag names a stored model's cache entries.
func modelTag(id string) string { return "model:" + id }

// CachedStore is a model store whose reads of one model, made by every
// chat turn, are kept in process; its writes drop the entry on every
// process through the hub (see package invalidation for the bound).
// Unknown models are never cached.
type CachedStore struct {
	llm.ModelStore
	hub    *invalidation.Hub
	models *invalidation.Cache[llm.Model]
}

// NewCachedStore wraps store with a cache of at most size models.
func NewCachedStore(store llm.ModelStore, hub *invalidation.Hub, size int) *CachedStore {
	return &CachedStore{ModelStore: store, hub: hub, models: invalidation.NewCache[llm.Model](hub, size)}
}

// GetModel returns the model from the cache or the store; the caller
// gets its own copy.
func (s *CachedStore) GetModel(ctx context.Context, id string) (*llm.Model, error) {
	m, err := s.models.Get(id, func() (llm.Model, []string, error) {
		m, err := s.ModelStore.GetModel(ctx, id)
		if err != nil {
			return llm.Model{}, nil, err
		}
		return *m, []string{modelTag(id)}, nil
	})
	if err != nil {
		return nil, err
	}
	return &m, nil
}

// UpdateModel changes the model and drops it everywhere.
func (s *CachedStore) UpdateModel(ctx context.Context, id string, fn func(*llm.Model) error) (*llm.Model, error) {
	m, err := s.ModelStore.UpdateModel(ctx, id, fn)
	if err == nil {
		s.hub.Invalidate(ctx, modelTag(id))
	}
	return m, err
}

// DeleteModel deletes the model and drops it everywhere.
func (s *CachedStore) DeleteModel(ctx context.Context, id string) error {
	err := s.ModelStore.DeleteModel(ctx, id)
	if err == nil {
		s.hub.Invalidate(ctx, modelTag(id))
	}
	return err
}
