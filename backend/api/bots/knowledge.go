package bots

import (
	"context"
	"strconv"

	"github.com/pergola-ai/pergola/backend/api/httpx"
	"github.com/pergola-ai/pergola/domain/bot"
	"github.com/pergola-ai/pergola/domain/knowledge"
)

// KnowledgeNamer names the knowledge bases of a workspace, for
// knowledge_infos; the same port the bot use cases check bindings with.
type KnowledgeNamer interface {
	Names(ctx context.Context, workspaceID int64, ids []int64) (map[int64]string, error)
}

// cozeKnowledge is Coze's bot knowledge config (dataset_ids, auto_call,
// search_strategy) with Pergola's retrieval settings beside it. Every
// field is optional; on update an absent one keeps its value, and
// dataset_ids replaces the whole list.
type cozeKnowledge struct {
	DatasetIDs     *[]idText `json:"dataset_ids"`
	AutoCall       *bool     `json:"auto_call"`
	SearchStrategy *int      `json:"search_strategy"`
	TopK           *int      `json:"top_k"`
	MinScore       *float64  `json:"min_score"`
	ShowSource     *bool     `json:"show_source"`
	NoRecallReply  *string   `json:"no_recall_reply"`
	RerankModel    *string   `json:"rerank_model"`
	UseRewrite     *bool     `json:"use_rewrite"`
}

// apply writes the fields present over k; a wrong id names its place. On
// create (creating) an absent auto_call is true, Coze's default.
func (r *cozeKnowledge) apply(k *bot.KnowledgeSettings, creating bool) error {
	if creating && r.AutoCall == nil {
		k.AutoCall = true
	}
	if r.DatasetIDs != nil {
		ids, err := parseIDs("knowledge.dataset_ids", *r.DatasetIDs)
		if err != nil {
			return err
		}
		k.KnowledgeIDs = ids
	}
	setBool(&k.AutoCall, r.AutoCall)
	setBool(&k.ShowSource, r.ShowSource)
	setBool(&k.Retrieval.Rewrite, r.UseRewrite)
	if r.SearchStrategy != nil {
		k.Retrieval.Strategy = knowledge.Strategy(*r.SearchStrategy)
	}
	if r.TopK != nil {
		k.Retrieval.TopK = *r.TopK
	}
	if r.MinScore != nil {
		k.Retrieval.MinScore = *r.MinScore
	}
	setText(&k.NoRecallReply, r.NoRecallReply, false)
	setText(&k.Retrieval.RerankModel, r.RerankModel, false)
	return nil
}

func setBool(dst *bool, v *bool) {
	if v != nil {
		*dst = *v
	}
}

// parseIDs reads a list of ids, naming a wrong one as at[i].
func parseIDs(at string, in []idText) ([]int64, error) {
	out := make([]int64, 0, len(in))
	for i, t := range in {
		id, err := t.parse(at+"["+strconv.Itoa(i)+"]", true)
		if err != nil {
			return nil, err
		}
		out = append(out, id)
	}
	return out, nil
}

// cozeKnowledgeOut is the knowledge of Coze's Bot object: the bound bases
// as knowledge_infos, and the settings under the names create takes.
type cozeKnowledgeOut struct {
	KnowledgeInfos []cozeKnowledgeInfo `json:"knowledge_infos"`
	AutoCall       bool                `json:"auto_call"`
	SearchStrategy int                 `json:"search_strategy"`
	TopK           int                 `json:"top_k"`
	MinScore       float64             `json:"min_score"`
	ShowSource     bool                `json:"show_source"`
	NoRecallReply  string              `json:"no_recall_reply"`
	RerankModel    string              `json:"rerank_model"`
	UseRewrite     bool                `json:"use_rewrite"`
}

// cozeKnowledgeInfo names one bound knowledge base.
type cozeKnowledgeInfo struct {
	ID   httpx.ID `json:"id"`
	Name string   `json:"name"`
}

// knowledgeOut shows a configuration's knowledge; a base deleted since
// it was bound (or with no namer) is listed by id alone, as workflows are.
func (h Coze) knowledgeOut(ctx context.Context, workspaceID int64, k bot.KnowledgeSettings) cozeKnowledgeOut {
	r := k.Retrieval
	out := cozeKnowledgeOut{KnowledgeInfos: []cozeKnowledgeInfo{}, AutoCall: k.AutoCall, SearchStrategy: int(r.Strategy),
		TopK: r.TopK, MinScore: r.MinScore, ShowSource: k.ShowSource, NoRecallReply: k.NoRecallReply,
		RerankModel: r.RerankModel, UseRewrite: r.Rewrite}
	var names map[int64]string
	if h.Knowledge != nil && k.Enabled() {
		names, _ = h.Knowledge.Names(ctx, workspaceID, k.KnowledgeIDs)
	}
	for _, id := range k.KnowledgeIDs {
		out.KnowledgeInfos = append(out.KnowledgeInfos, cozeKnowledgeInfo{ID: httpx.ID(id), Name: names[id]})
	}
	return out
}
