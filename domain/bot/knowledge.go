package bot

import (
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/pergola-ai/pergola/domain/errs"
	"github.com/pergola-ai/pergola/domain/knowledge"
)

// Limits and defaults of a bot's knowledge settings. The field names in
// errors are Coze's (knowledge.dataset_ids, search_strategy) so a caller
// of Coze's bot API reads them as its own.
const (
	MaxKnowledgeBases    = 20
	DefaultKnowledgeTopK = 5
	MaxKnowledgeTopK     = 50
	MaxNoRecallReplyLen  = 2000
	// KnowledgeTool is the tool an on-demand bot searches its knowledge
	// with; client tools may not take its name.
	KnowledgeTool = "search_knowledge"
)

// KnowledgeSettings binds knowledge bases (of the bot's workspace) to a
// bot, as Coze's bot knowledge config does.
type KnowledgeSettings struct {
	KnowledgeIDs []int64
	// AutoCall retrieves before every turn and puts the chunks in the
	// prompt (Coze's auto_call); false gives the model a search tool to
	// call when it decides to.
	AutoCall  bool
	Retrieval knowledge.Retrieval
	// ShowSource appends the recalled documents to the answer.
	ShowSource bool
	// NoRecallReply is answered, without calling the model, when an
	// automatic recall finds nothing; "" lets the model answer.
	NoRecallReply string
}

// Enabled reports whether the bot binds any knowledge base.
func (k *KnowledgeSettings) Enabled() bool { return len(k.KnowledgeIDs) > 0 }

// OnDemand reports whether the model gets the knowledge search tool.
func (k *KnowledgeSettings) OnDemand() bool { return k.Enabled() && !k.AutoCall }

// normalize fills the default top_k and drops repeated ids.
func (k *KnowledgeSettings) normalize() {
	if k.Retrieval.TopK == 0 {
		k.Retrieval.TopK = DefaultKnowledgeTopK
	}
	k.NoRecallReply = strings.TrimSpace(k.NoRecallReply)
	seen := map[int64]bool{}
	ids := k.KnowledgeIDs[:0:0]
	for _, id := range k.KnowledgeIDs {
		if !seen[id] {
			seen[id] = true
			ids = append(ids, id)
		}
	}
	k.KnowledgeIDs = ids
}

// validate checks the settings and names the first wrong field.
func (k *KnowledgeSettings) validate() error {
	if len(k.KnowledgeIDs) > MaxKnowledgeBases {
		return errs.Invalid("knowledge.dataset_ids", "at most %d knowledge bases, got %d", MaxKnowledgeBases, len(k.KnowledgeIDs))
	}
	for i, id := range k.KnowledgeIDs {
		if id <= 0 {
			return errs.Invalid("knowledge.dataset_ids["+strconv.Itoa(i)+"]", "must be a knowledge base id, got %d", id)
		}
	}
	r := k.Retrieval
	switch r.Strategy {
	case knowledge.StrategySemantic, knowledge.StrategyHybrid, knowledge.StrategyFullText:
	default:
		return errs.Invalid("knowledge.search_strategy", "must be 0 (semantic), 1 (hybrid) or 20 (full text), got %d", r.Strategy)
	}
	if r.TopK < 1 || r.TopK > MaxKnowledgeTopK {
		return errs.Invalid("knowledge.top_k", "must be between 1 and %d, got %d", MaxKnowledgeTopK, r.TopK)
	}
	if r.MinScore < 0 || r.MinScore > 1 {
		return errs.Invalid("knowledge.min_score", "must be between 0 and 1, got %g", r.MinScore)
	}
	if len(r.RerankModel) > 200 {
		return errs.Invalid("knowledge.rerank_model", "must be at most 200 characters")
	}
	if utf8.RuneCountInString(k.NoRecallReply) > MaxNoRecallReplyLen {
		return errs.Invalid("knowledge.no_recall_reply", "must be at most %d characters", MaxNoRecallReplyLen)
	}
	return nil
}
