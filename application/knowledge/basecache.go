package knowledge

import (
	"context"
	"slices"
	"strconv"
	"strings"

	"github.com/pergola-ai/pergola/application/invalidation"
	"github.com/pergola-ai/pergola/domain/knowledge"
)

// baseTag names the cache entries that hold a knowledge base.
func baseTag(id int64) string { return "knowledge-base:" + strconv.FormatInt(id, 10) }

// CachedBases is a knowledge base store whose BasesByID, read by every
// recall (a bot's bases, the same ones turn after turn), is kept in
// process; UpdateBase and DeleteBase drop the base on every process
// through the hub (see package invalidation for the bound). The other
// reads go to the store.
type CachedBases struct {
	knowledge.BaseStore
	hub   *invalidation.Hub
	bases *invalidation.Cache[[]knowledge.Base]
}

// NewCachedBases wraps store with a cache of at most size lists of bases.
func NewCachedBases(store knowledge.BaseStore, hub *invalidation.Hub, size int) *CachedBases {
	return &CachedBases{BaseStore: store, hub: hub, bases: invalidation.NewCache[[]knowledge.Base](hub, size)}
}

// BasesByID returns the bases among ids of the workspace, from the cache
// or in one read of the store. The entry is tagged with every id asked,
// found or not; the caller must not change the slice.
func (s *CachedBases) BasesByID(ctx context.Context, workspaceID int64, ids []int64) ([]knowledge.Base, error) {
	key := make([]string, 0, len(ids)+1)
	key = append(key, strconv.FormatInt(workspaceID, 10))
	for _, id := range ids {
		key = append(key, strconv.FormatInt(id, 10))
	}
	return s.bases.Get(strings.Join(key, ","), func() ([]knowledge.Base, []string, error) {
		found, err := s.BaseStore.BasesByID(ctx, workspaceID, ids)
		if err != nil {
			return nil, nil, err
		}
		tags := make([]string, len(ids))
		for i, id := range ids {
			tags[i] = baseTag(id)
		}
		return slices.Clip(found), tags, nil
	})
}

// UpdateBase changes the base and drops it everywhere.
func (s *CachedBases) UpdateBase(ctx context.Context, workspaceID, id int64, fn func(*knowledge.Base) error) (*knowledge.Base, error) {
	b, err := s.BaseStore.UpdateBase(ctx, workspaceID, id, fn)
	if err == nil {
		s.hub.Invalidate(ctx, baseTag(id))
	}
	return b, err
}

// DeleteBase deletes the base and drops it everywhere.
func (s *CachedBases) DeleteBase(ctx context.Context, workspaceID, id int64) error {
	err := s.BaseStore.DeleteBase(ctx, workspaceID, id)
	if err == nil {
		s.hub.Invalidate(ctx, baseTag(id))
	}
	return err
}
