package mysql

import (
	"context"
	"testing"

	"github.com/pergola-ai/pergola/domain/knowledge"
	"github.com/pergola-ai/pergola/infra/knowledgestore/indextest"
	"github.com/pergola-ai/pergola/infra/testenv"
)

func open(t testing.TB, dsn string) *Index {
	t.Helper()
	ix, err := Open(context.Background(), dsn)
	if err != nil {
		t.Fatalf("Open: %v", err)
	}
	t.Cleanup(func() { _ = ix.Close() })
	return ix
}

func TestContract(t *testing.T) {
	indextest.Run(t, func(t *testing.T) knowledge.Index { return open(t, testenv.MySQL(t)) })
}
