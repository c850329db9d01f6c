package plugin

import (
	"context"
	"fmt"
	"hash/fnv"

	"github.com/pergola-ai/pergola/domain/plugin"
	"github.com/pergola-ai/pergola/domain/plugin/openapi"
)

// CatalogID is the fixed plugin id of a built-in, derived from its key so
// it is the same on every server and across restarts: bots bind built-ins
// by it like any plugin. Ids below 2^31 never meet the time-based ids of
// stored rows.
func CatalogID(key string) int64 {
	h := fnv.New32a()
	h.Write([]byte("pergola-builtin:" + key))
	return int64(h.Sum32()%(1<<31-1)) + 1
}

// SyncCatalog stores every built-in plugin in the catalog, as a published
// plugin (version 1) every workspace can use, refreshing what a new
// release changed. Administrators' switches are kept. It fails when a
// manifest does not parse or two built-ins would share an id.
func (s *Service) SyncCatalog(ctx context.Context) error {
	seen := map[int64]string{}
	for _, b := range s.d.Builtins {
		id := CatalogID(b.Key)
		if other, dup := seen[id]; dup {
			return fmt.Errorf("built-in plugins %s and %s derive the same id %d; rename one", other, b.Key, id)
		}
		seen[id] = b.Key
		// Built-ins run in-process: the server URL only satisfies the parser.
		res, err := openapi.Parse(b.OpenAPI, "https://builtin.pergola.invalid/"+b.Key)
		if err != nil {
			return fmt.Errorf("built-in plugin %s: manifest: %w", b.Key, err)
		}
		pl := &plugin.Plugin{ID: id, Name: b.Name, Description: b.Description, Kind: plugin.KindBuiltin,
			Draft: plugin.Spec{Source: string(b.OpenAPI), Tools: res.Tools}}
		if err := s.d.Store.SyncBuiltin(ctx, pl); err != nil {
			return fmt.Errorf("built-in plugin %s: %w", b.Key, err)
		}
	}
	return nil
}
