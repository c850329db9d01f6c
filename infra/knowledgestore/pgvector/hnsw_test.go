package pgvector

import (
	"context"
	"math/rand"
	"strings"
	"testing"

	"github.com/jackc/pgx/v5"
	pgv "github.com/pgvector/pgvector-go"

	"github.com/pergola-ai/pergola/domain/knowledge"
)

// TestSearchUsesHNSWAndFilters: the search query can run on the partial
// HNSW index of its dimension, and a scope holding few of the index's
// vectors still gets topK rows from it (iterative scan, pgvector 0.8+).
// On 400 rows the planner prefers a sequential scan or the b-tree, so the
// test rules out the one and drops the other.
func TestSearchUsesHNSWAndFilters(t *testing.T) {
	ctx := context.Background()
	ix := open(t, testDSN(t))
	r := rand.New(rand.NewSource(1))
	var batch []knowledge.Chunk
	for i := 0; i < 400; i++ {
		kid := int64(7)
		if i%50 == 0 {
			kid = 8 // 8 chunks of 400
		}
		v := make([]float32, 8)
		for j := range v {
			v[j] = float32(r.NormFloat64())
		}
		batch = append(batch, knowledge.Chunk{ID: int64(i + 1), WorkspaceID: 1, KnowledgeID: kid, DocumentID: 1, Position: i, Text: "x", Vector: v})
	}
	if err := ix.PutChunks(ctx, batch); err != nil {
		t.Fatal(err)
	}
	q := []float32{1, 0, 0, 0, 0, 0, 0, 0}
	err := pgx.BeginFunc(ctx, ix.pool, func(tx pgx.Tx) error {
		for _, stmt := range []string{"DROP INDEX knowledge_chunks_doc", "SET LOCAL enable_seqscan = off"} {
			if _, err := tx.Exec(ctx, stmt); err != nil {
				return err
			}
		}
		if err := ix.tuneScan(ctx, tx, 5); err != nil {
			return err
		}
		if plan := explain(t, tx, q, 8); !strings.Contains(plan, "knowledge_chunks_hnsw_8") {
			t.Errorf("the search does not use the HNSW index:\n%s", plan)
		}
		rows, err := tx.Query(ctx, vectorQuery(8), pgv.NewVector(q), int64(1), []int64{8}, 5, []int64{99})
		if err != nil {
			return err
		}
		hits, err := collectHits(rows)
		if ix.iterative && len(hits) != 5 {
			t.Errorf("the filtered HNSW scan returned %d rows, want 5", len(hits))
		}
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
}

type querier interface {
	Query(ctx context.Context, sql string, args ...any) (pgx.Rows, error)
}

func explain(t *testing.T, db querier, q []float32, kid int64) string {
	t.Helper()
	rows, err := db.Query(context.Background(), "EXPLAIN "+vectorQuery(8), pgv.NewVector(q), int64(1), []int64{kid}, 5, []int64{99})
	if err != nil {
		t.Fatalf("EXPLAIN: %v", err)
	}
	defer rows.Close()
	var lines []string
	for rows.Next() {
		var l string
		if err := rows.Scan(&l); err != nil {
			t.Fatal(err)
		}
		lines = append(lines, l)
	}
	return strings.Join(lines, "\n")
}
