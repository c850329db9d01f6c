package indextest

import (
	"fmt"
	"sync"
	"testing"

	"github.com/pergola-ai/pergola/domain/identity"
	"github.com/pergola-ai/pergola/domain/knowledge"
)

// testConcurrentWriters: documents ingested at once, into one base and
// into several, all land, with searches running beside the writes.
func testConcurrentWriters(t *testing.T, ix knowledge.Index) {
	const writers, batches, size = 4, 5, 10
	var wg sync.WaitGroup
	errs := make(chan error, writers*batches+writers)
	for w := 0; w < writers; w++ {
		wg.Add(1)
		go func(w int) {
			defer wg.Done()
			kid := int64(7 + w%2)
			for b := 0; b < batches; b++ {
				var batch []knowledge.Chunk
				for i := 0; i < size; i++ {
					id := int64(1 + (w*batches+b)*size + i)
					batch = append(batch, chunk(id, 1, kid, int64(100+w*batches+b), i, fmt.Sprintf("writer%d batch%d", w, b), []float32{1, float32(id)}))
				}
				if err := ix.PutChunks(ctx, batch); err != nil {
					errs <- fmt.Errorf("writer %d batch %d: %w", w, b, err)
				}
				if _, err := ix.SearchVector(ctx, scope178, []float32{1, 1}, 3); err != nil {
					errs <- fmt.Errorf("search beside writer %d: %w", w, err)
				}
			}
		}(w)
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
	for w := 0; w < writers; w++ {
		for b := 0; b < batches; b++ {
			_, total, err := ix.ListChunks(ctx, 1, int64(7+w%2), int64(100+w*batches+b), identity.Page{Number: 1, Size: 1})
			if err != nil || total != size {
				t.Fatalf("document of writer %d batch %d: %d chunks, %v; want %d", w, b, total, err, size)
			}
		}
	}
	if n := len(vectorIDs(t, ix, scope178, []float32{1, 1}, 1000)); n != writers*batches*size {
		t.Fatalf("%d chunks findable by vector, want %d", n, writers*batches*size)
	}
}
