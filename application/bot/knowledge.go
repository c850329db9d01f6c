package bot

import (
	"context"
	"fmt"
	"strconv"

	"github.com/pergola-ai/pergola/domain/bot"
	"github.com/pergola-ai/pergola/domain/errs"
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
// workspace's documents.
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
	return nil
}
