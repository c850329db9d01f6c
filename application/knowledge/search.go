package knowledge

import (
	"context"
	"fmt"
	"strings"

	"github.com/pergola-ai/pergola/domain/errs"
	"github.com/pergola-ai/pergola/domain/identity"
	"github.com/pergola-ai/pergola/domain/knowledge"
)

// Retrieval bounds.
const (
	DefaultTopK = 5
	MaxTopK     = 50
	// rrfK is the k of reciprocal rank fusion, as its paper and most
	// engines use.
	rrfK = 60
	// maxQueryLen bounds a query, in bytes.
	maxQueryLen = 4000
)

// RecallQuery asks what knowledge bases of a workspace say about a query,
// for a bot turn or a workflow node.
type RecallQuery struct {
	WorkspaceID  int64
	KnowledgeIDs []int64
	Query        string
	// History is the recent conversation, oldest first, from which a
	// query is rewritten when Retrieval.Rewrite is set.
	History   []string
	Retrieval knowledge.Retrieval
	// RewriteModel is the chat model that rewrites ("" the platform's
	// choice), usually the bot's own.
	RewriteModel string
}

// Search is Dify's hit testing: it searches one knowledge base as a bot
// would, returning the hits with their scores, documents and positions,
// best first. It needs membership (errs.ErrNotFound for an unreachable
// knowledge base); an empty query, a top_k over 50, a min_score outside
// 0..1 or an unknown strategy fail with errs.ErrInvalid; a failing
// embedding or rerank model with errs.ErrUnavailable.
func (s *Service) Search(ctx context.Context, p identity.Principal, knowledgeID int64, query string, r knowledge.Retrieval) ([]knowledge.Recalled, error) {
	b, _, err := s.reach(ctx, p, knowledgeID)
	if err != nil {
		return nil, err
	}
	if r, err = s.checkRetrieval(query, r); err != nil {
		return nil, err
	}
	return s.retrieve(ctx, b.WorkspaceID, []knowledge.Base{*b}, query, r, true)
}

// Recall searches knowledge bases of a workspace for a bot or a workflow,
// with no caller: the workspace is the boundary. Knowledge bases that no
// longer exist, or belong to another workspace, are skipped (a bot
// naming a deleted knowledge base answers without it, as Coze's does);
// only chunks of ready documents come back. The query is rewritten from
// History when asked and a rewriter is configured (a failing rewrite
// keeps the query as it is); a failing reranker keeps the fused order.
// Errors: errs.ErrInvalid for a bad query or retrieval,
// errs.ErrUnavailable when the embedding model fails.
func (s *Service) Recall(ctx context.Context, q RecallQuery) ([]knowledge.Recalled, error) {
	r, err := s.checkRetrieval(q.Query, clampTopK(q.Retrieval))
	if err != nil {
		return nil, err
	}
	bases := s.basesIn(ctx, q.WorkspaceID, q.KnowledgeIDs)
	if len(bases) == 0 {
		return nil, nil
	}
	query := s.rewrite(ctx, q, r)
	return s.retrieve(ctx, q.WorkspaceID, bases, query, r, false)
}

// basesIn loads, in one read, the knowledge bases among ids that exist
// in the workspace, in the order of ids, skipping the others.
func (s *Service) basesIn(ctx context.Context, workspaceID int64, ids []int64) []knowledge.Base {
	found, err := s.d.Bases.BasesByID(ctx, workspaceID, ids)
	if err != nil {
		s.d.Log.WarnContext(ctx, "knowledge: recall could not load its knowledge bases", "knowledge", ids, "err", err)
		return nil
	}
	byID := make(map[int64]knowledge.Base, len(found))
	for _, b := range found {
		byID[b.ID] = b
	}
	out := make([]knowledge.Base, 0, len(found))
	for _, id := range ids {
		if b, ok := byID[id]; ok {
			out = append(out, b)
			delete(byID, id)
		}
	}
	return out
}

// rewrite asks the rewriter for a standalone query; on any failure the
// query stays as it is, since recall must not fail a turn for it.
func (s *Service) rewrite(ctx context.Context, q RecallQuery, r knowledge.Retrieval) string {
	if !r.Rewrite || len(q.History) == 0 || s.d.Rewriter == nil {
		return q.Query
	}
	out, err := s.d.Rewriter.Rewrite(ctx, q.RewriteModel, q.Query, q.History)
	if err != nil || strings.TrimSpace(out) == "" {
		s.d.Log.WarnContext(ctx, "knowledge: query rewrite failed; searching the query as given", "err", err)
		return q.Query
	}
	return strings.TrimSpace(out)
}

// clampTopK bounds a bot's or workflow's top_k instead of refusing it.
func clampTopK(r knowledge.Retrieval) knowledge.Retrieval {
	r.TopK = min(r.TopK, MaxTopK)
	return r
}

// checkRetrieval validates a query and retrieval settings, filling the
// default top_k.
func (s *Service) checkRetrieval(query string, r knowledge.Retrieval) (knowledge.Retrieval, error) {
	switch {
	case strings.TrimSpace(query) == "":
		return r, errs.Invalid("query", "is required")
	case len(query) > maxQueryLen:
		return r, errs.Invalid("query", "is %d bytes long; at most %d are allowed", len(query), maxQueryLen)
	case r.TopK < 0 || r.TopK > MaxTopK:
		return r, errs.Invalid("top_k", "must be between 1 and %d, not %d", MaxTopK, r.TopK)
	case r.MinScore < 0 || r.MinScore > 1:
		return r, errs.Invalid("min_score", "must be between 0 and 1, not %g", r.MinScore)
	case r.Strategy != knowledge.StrategySemantic && r.Strategy != knowledge.StrategyHybrid && r.Strategy != knowledge.StrategyFullText:
		return r, errs.Invalid("search_strategy", "must be 0 (semantic), 1 (hybrid) or 20 (full text), not %d", r.Strategy)
	case r.RerankModel != "" && s.d.Reranker == nil:
		return r, errs.Invalid("rerank_model", "reranking is not available in this process")
	}
	if r.TopK == 0 {
		r.TopK = DefaultTopK
	}
	return r, nil
}

// retrieve runs a checked search over knowledge bases of one workspace.
// strict fails on a failing reranker instead of keeping the fused order.
// Chunks of documents being indexed (or failed) are in the index but are
// never returned: the index leaves them out (Scope.SkipDocuments), by the
// documents' states cached at the bases' revisions (see docStates).
func (s *Service) retrieve(ctx context.Context, workspaceID int64, bases []knowledge.Base, query string, r knowledge.Retrieval, strict bool) ([]knowledge.Recalled, error) {
	v, err := s.viewOf(ctx, workspaceID, bases)
	if err != nil {
		return nil, err
	}
	q := &candidateQuery{scope: v.scope(workspaceID, bases), bases: bases, text: query, strategy: r.Strategy}
	hits, err := s.candidates(ctx, q, candidateCount(r))
	if err != nil {
		return nil, err
	}
	recalled := named(v, bases, hits)
	if r.RerankModel != "" {
		if recalled, err = s.rerank(ctx, r.RerankModel, query, recalled, r.TopK, strict); err != nil {
			return nil, err
		}
	}
	return cut(recalled, r), nil
}

// candidateCount is how many chunks a retrieval asks the index for: three
// times top_k when a fusion or a rerank reorders them, else top_k, the
// first of one ranking being its answer (the index loads every chunk it
// returns).
func candidateCount(r knowledge.Retrieval) int {
	if r.Strategy == knowledge.StrategyHybrid || r.RerankModel != "" {
		return min(r.TopK*3, 3*MaxTopK)
	}
	return r.TopK
}

// cut drops hits under min_score and keeps top_k.
func cut(hits []knowledge.Recalled, r knowledge.Retrieval) []knowledge.Recalled {
	out := hits[:0]
	for _, h := range hits {
		if r.MinScore > 0 && h.Score < r.MinScore {
			continue
		}
		out = append(out, h)
		if len(out) == r.TopK {
			break
		}
	}
	return out
}

func baseIDs(bases []knowledge.Base) []int64 {
	ids := make([]int64, len(bases))
	for i, b := range bases {
		ids[i] = b.ID
	}
	return ids
}

// candidateQuery is one retrieval's search.
type candidateQuery struct {
	scope    knowledge.Scope
	bases    []knowledge.Base
	text     string
	strategy knowledge.Strategy
}

// candidates searches by the strategy: vectors, full text, or both fused.
func (s *Service) candidates(ctx context.Context, q *candidateQuery, n int) ([]knowledge.Hit, error) {
	switch q.strategy {
	case knowledge.StrategyFullText:
		return s.fullText(ctx, q, n)
	case knowledge.StrategyHybrid:
		return s.hybrid(ctx, q, n)
	}
	return s.semantic(ctx, q, n)
}

// hybrid runs the full-text search while the query is embedded and the
// vectors searched, and fuses the two lists.
func (s *Service) hybrid(ctx context.Context, q *candidateQuery, n int) ([]knowledge.Hit, error) {
	var txt []knowledge.Hit
	var txtErr error
	done := make(chan struct{})
	go func() {
		defer close(done)
		txt, txtErr = s.fullText(ctx, q, n)
	}()
	vec, err := s.semantic(ctx, q, n)
	<-done
	if err != nil {
		return nil, err
	}
	if txtErr != nil {
		return nil, txtErr
	}
	return fuse(vec, txt), nil
}

func (s *Service) fullText(ctx context.Context, q *candidateQuery, n int) ([]knowledge.Hit, error) {
	hits, err := s.d.Index.SearchText(ctx, q.scope, q.text, n)
	if err != nil {
		return nil, fmt.Errorf("full-text search: %w", err)
	}
	return hits, nil
}
