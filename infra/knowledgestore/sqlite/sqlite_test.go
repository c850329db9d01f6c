package sqlite

import (
	"context"
	"path/filepath"
	"testing"

	"github.com/pergola-ai/pergola/domain/knowledge"
	"github.com/pergola-ai/pergola/infra/knowledgestore/indextest"
)

func openTemp(t testing.TB, opts ...Option) *Index {
	t.Helper()
	ix, err := Open(context.Background(), filepath.Join(t.TempDir(), "data", "knowledge.db"), opts...)
	if err != nil {
		t.Fatalf("Open: %v", err)
	}
	t.Cleanup(func() { _ = ix.Close() })
	return ix
}

func TestContract(t *testing.T) {
	indextest.Run(t, func(t *testing.T) knowledge.Index { return openTemp(t) })
}

// TestContractANN runs the suite with every base searched through HNSW.
// The graph's answers on these small corpora are the exact ones.
func TestContractANN(t *testing.T) {
	indextest.Run(t, func(t *testing.T) knowledge.Index {
		return openTemp(t, WithANNThreshold(1), WithSyncANNBuild())
	})
}
