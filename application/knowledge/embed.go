package knowledge

import (
	"context"
	"time"

	"github.com/pergola-ai/pergola/domain/knowledge"
)

// store embeds the pieces in batches and stores each batch as it is
// embedded, with fresh chunk ids, reporting progress after each; it
// returns the ids it stored.
func (s *Service) store(ctx context.Context, b *knowledge.Base, d *knowledge.Document, pieces []Piece) (map[int64]bool, error) {
	kept := make(map[int64]bool, len(pieces))
	for start := 0; start < len(pieces); start += s.d.EmbedBatch {
		batch := pieces[start:min(start+s.d.EmbedBatch, len(pieces))]
		chunks, err := s.embedBatch(ctx, b, d, batch, start)
		if err != nil {
			return nil, err
		}
		if err := s.d.Index.PutChunks(ctx, chunks); err != nil {
			return nil, err
		}
		for _, c := range chunks {
			kept[c.ID] = true
		}
		done := start + len(batch)
		if err := s.report(ctx, d, parsedPercent+(99-parsedPercent)*done/len(pieces), int64(done)); err != nil {
			return nil, err
		}
	}
	return kept, nil
}

// embedBatch embeds one batch of pieces into chunks.
func (s *Service) embedBatch(ctx context.Context, b *knowledge.Base, d *knowledge.Document, batch []Piece, start int) ([]knowledge.Chunk, error) {
	texts := make([]string, len(batch))
	for i, p := range batch {
		texts[i] = p.Text
	}
	vs, err := s.d.Embedder.Embed(ctx, b.EmbeddingModel, texts)
	if err != nil {
		if ctx.Err() != nil {
			return nil, ctx.Err()
		}
		return nil, failf("the embedding model %q failed: %v; check the model in the admin models API, then refresh the document", b.EmbeddingModel, err)
	}
	if len(vs) != len(batch) {
		return nil, failf("the embedding model %q returned %d vectors for %d texts", b.EmbeddingModel, len(vs), len(batch))
	}
	chunks := make([]knowledge.Chunk, len(batch))
	for i, p := range batch {
		if len(vs[i]) != b.Dimensions {
			return nil, failf("the embedding model %q returned vectors of %d dimensions; this knowledge base holds %d", b.EmbeddingModel, len(vs[i]), b.Dimensions)
		}
		chunks[i] = knowledge.Chunk{ID: s.d.IDs.Next(), WorkspaceID: d.WorkspaceID, KnowledgeID: d.KnowledgeID, DocumentID: d.ID,
			Position: start + i, Text: p.Text, Headings: p.Headings, Row: p.Row, Vector: vs[i]}
	}
	return chunks, nil
}

// report records progress for the attempt's generation and extends its
// lease; an error means the attempt lost the document (or the database
// failed) and must stop.
func (s *Service) report(ctx context.Context, d *knowledge.Document, percent int, done int64) error {
	return s.d.Documents.Progress(ctx, d.ID, d.Generation, percent, done, s.d.Now().Add(s.d.Lease))
}

// keepLease renews the attempt's lease every third of it while a long
// step (a parse, an embedding call) runs; when a renewal finds the
// document lost, it cancels the attempt's context.
func (s *Service) keepLease(ctx context.Context, d *knowledge.Document) (context.Context, func()) {
	ctx, cancel := context.WithCancel(ctx)
	done := make(chan struct{})
	go func() {
		defer close(done)
		t := time.NewTicker(max(s.d.Lease/3, 10*time.Millisecond))
		defer t.Stop()
		for {
			select {
			case <-ctx.Done():
				return
			case <-t.C:
			}
			if err := s.report(ctx, d, -1, -1); lost(err) {
				cancel()
				return
			}
		}
	}()
	return ctx, func() { cancel(); <-done }
}
