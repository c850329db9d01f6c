package bot

import (
	"context"
	"errors"
	"fmt"
	"strconv"

	"github.com/pergola-ai/pergola/domain/bot"
	"github.com/pergola-ai/pergola/domain/errs"
	"github.com/pergola-ai/pergola/domain/llm"
)

// KnowledgeBases names the knowledge bases of a workspace; the knowledge
// service implements it (through a small adapter in the wiring).
type KnowledgeBases interface {
	// Names returns the name of each of ids that is a knowledge base of
	// the workspace; ids of other workspaces and unknown ids are absent.
	Names(ctx context.Context, workspaceID int64, ids []int64) (map[int64]string, error)
}

// WithKnowledge lets bots bind knowledge bases, checked by k.
func WithKnowledge(k KnowledgeBases) Option { return func(s *Service) { s.knowledge = k } }

// checkKnowledge refuses knowledge bases that are not of the bot's
// workspace, naming the first such id: a bot can never recall another
// workspace's documents. It also refuses a rerank model that could never
// rerank, since recall would then answer without it on every turn.
func (s *Service) checkKnowledge(ctx context.Context, workspaceID int64, k bot.KnowledgeSettings) error {
	if !k.Enabled() {
		return nil
	}
	if s.knowledge == nil {
		return errs.Invalid("knowledge.dataset_ids", "knowledge bases are not available on this server; remove them")
	}
	names, err := s.knowledge.Names(ctx, workspaceID, k.KnowledgeIDs)
	if err != nil {
		return fmt.Errorf("check knowledge bases: %w", err)
	}
	for i, id := range k.KnowledgeIDs {
		if _, ok := names[id]; !ok {
			return errs.Invalid("knowledge.dataset_ids["+strconv.Itoa(i)+"]",
				"knowledge base %d does not exist in this workspace; GET /v1/datasets?space_id=%d lists them", id, workspaceID)
		}
	}
	return s.checkRerankModel(ctx, k.Retrieval.RerankModel)
}

// checkRerankModel accepts no model or an enabled model of kind rerank.
func (s *Service) checkRerankModel(ctx context.Context, id string) error {
	if id == "" {
		return nil
	}
	m, err := s.models.Get(ctx, id)
	if errors.Is(err, errs.ErrNotFound) {
		return errs.Invalid("knowledge.rerank_model", "model %q does not exist; GET /api/models?kind=rerank lists the rerank models", id)
	}
	if err != nil {
		return fmt.Errorf("check rerank model %q: %w", id, err)
	}
	if m.KindOrChat() != llm.KindRerank {
		return errs.Invalid("knowledge.rerank_model", "model %q is of kind %q; pick a model of kind rerank (GET /api/models?kind=rerank)", id, m.KindOrChat())
	}
	if !m.Enabled {
		return errs.Invalid("knowledge.rerank_model", "model %q is disabled; pick another or ask an administrator to enable it", id)
	}
	return nil
}
