package knowledge

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"slices"

	"github.com/pergola-ai/pergola/domain/errs"
	"github.com/pergola-ai/pergola/domain/knowledge"
)

// semantic embeds the query once per embedding model among the knowledge
// bases (they may differ) and merges the nearest chunks by cosine similarity, which is comparable
// across models of the same scale.
func (s *Service) semantic(ctx context.Context, q *candidateQuery, n int) ([]knowledge.Hit, error) {
	groups := map[string][]knowledge.Base{}
	var models []string
	for _, b := range q.bases {
		if _, ok := groups[b.EmbeddingModel]; !ok {
			models = append(models, b.EmbeddingModel)
		}
		groups[b.EmbeddingModel] = append(groups[b.EmbeddingModel], b)
	}
	var all []knowledge.Hit
	for _, m := range models {
		vs, err := s.d.Embedder.Embed(ctx, m, []string{q.text})
		if err != nil {
			return nil, errs.New(errs.ErrUnavailable, "embedding model %q failed to embed the query: %v", m, err)
		}
		sc := q.scope
		sc.KnowledgeIDs = baseIDs(groups[m])
		hits, err := s.d.Index.SearchVector(ctx, sc, vs[0], n)
		if err != nil {
			return nil, fmt.Errorf("vector search: %w", err)
		}
		all = append(all, hits...)
	}
	slices.SortStableFunc(all, func(a, b knowledge.Hit) int { return cmp.Compare(b.Score, a.Score) })
	return all[:min(len(all), n)], nil
}

// fuse merges two rankings by reciprocal rank fusion: each chunk scores
// the sum of 1/(k+rank) over the lists it is in, divided by the best
// possible sum (first in both), so that a hybrid score is in 0..1 and
// min_score means the same share of the top for any k.
func fuse(a, b []knowledge.Hit) []knowledge.Hit {
	score := map[int64]float64{}
	chunk := map[int64]knowledge.Chunk{}
	var order []int64
	for _, list := range [][]knowledge.Hit{a, b} {
		for rank, h := range list {
			if _, ok := chunk[h.Chunk.ID]; !ok {
				order = append(order, h.Chunk.ID)
				chunk[h.Chunk.ID] = h.Chunk
			}
			score[h.Chunk.ID] += 1 / float64(rrfK+rank+1)
		}
	}
	best := 2 / float64(rrfK+1)
	out := make([]knowledge.Hit, len(order))
	for i, id := range order {
		out[i] = knowledge.Hit{Chunk: chunk[id], Score: score[id] / best}
	}
	slices.SortStableFunc(out, func(x, y knowledge.Hit) int { return cmp.Compare(y.Score, x.Score) })
	return out
}

// named names the hits' documents and knowledge bases, keeping only the
// hits of documents that were ready at the view's revisions: the index
// left out those that were not, this drops those it did not know of yet
// (created since) and those deleted.
func named(v *view, bases []knowledge.Base, hits []knowledge.Hit) []knowledge.Recalled {
	if len(hits) == 0 {
		return nil
	}
	names := make(map[int64]string, len(bases))
	for _, b := range bases {
		names[b.ID] = b.Name
	}
	out := make([]knowledge.Recalled, 0, len(hits))
	for _, h := range hits {
		if name, ok := v.documentName(h.Chunk.DocumentID); ok {
			out = append(out, knowledge.Recalled{Hit: h, DocumentName: name, KnowledgeName: names[h.Chunk.KnowledgeID]})
		}
	}
	return out
}

// rerank orders hits by a rerank model's relevance, keeping topN. If the
// model fails, a strict caller gets errs.ErrUnavailable (errs.ErrInvalid
// for a model that is unknown or not of kind rerank); otherwise the fused
// order stays (logged), since a bot's turn should not fail for it, nor
// lose its knowledge because the model was removed after the bot was saved.
func (s *Service) rerank(ctx context.Context, model, query string, hits []knowledge.Recalled, topN int, strict bool) ([]knowledge.Recalled, error) {
	if len(hits) == 0 {
		return hits, nil
	}
	texts := make([]string, len(hits))
	for i, h := range hits {
		texts[i] = h.Chunk.Text
	}
	ranked, err := s.d.Reranker.Rerank(ctx, model, query, texts, topN)
	if errors.Is(err, errs.ErrInvalid) && strict { // an unknown model, or not of kind rerank: the caller's to fix
		return nil, err
	}
	if err != nil && strict {
		return nil, errs.New(errs.ErrUnavailable, "rerank model %q failed: %v", model, err)
	}
	if err != nil {
		s.d.Log.WarnContext(ctx, "knowledge: rerank failed; keeping the search order", "model", model, "err", err)
		return hits, nil
	}
	out := make([]knowledge.Recalled, 0, len(ranked))
	for _, r := range ranked {
		if r.Index >= 0 && r.Index < len(hits) {
			h := hits[r.Index]
			h.Score = r.Score
			out = append(out, h)
		}
	}
	slices.SortStableFunc(out, func(a, b knowledge.Recalled) int { return cmp.Compare(b.Score, a.Score) })
	return out, nil
}
