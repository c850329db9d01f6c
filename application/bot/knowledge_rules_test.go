package bot_test

import (
	"context"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	botapp "github.com/pergola-ai/pergola/application/bot"
	identityapp "github.com/pergola-ai/pergola/application/identity"
	"github.com/pergola-ai/pergola/domain/bot"
	"github.com/pergola-ai/pergola/domain/knowledge"
	"github.com/pergola-ai/pergola/domain/llm"
)

// fakeKnowledge names knowledge bases by workspace.
type fakeKnowledge map[int64]map[int64]string

func (f fakeKnowledge) Names(_ context.Context, ws int64, ids []int64) (map[int64]string, error) {
	out := map[int64]string{}
	for _, id := range ids {
		if name, ok := f[ws][id]; ok {
			out[id] = name
		}
	}
	return out, nil
}

// withKnowledge rebuilds e's service with knowledge bases 40 and 41 in
// the team workspace and 50 in the other one, and adds the rerank model
// "rr", the disabled rerank model "rr-off" and the embedding model "emb".
func withKnowledge(e *env) {
	kb := fakeKnowledge{e.ws.ID: {40: "Garden", 41: "FAQ"}, e.other.ID: {50: "Secret"}}
	e.models.list = append(e.models.list, llm.Model{ID: "rr", Kind: llm.KindRerank, Enabled: true},
		llm.Model{ID: "rr-off", Kind: llm.KindRerank}, llm.Model{ID: "emb", Kind: llm.KindEmbedding, Enabled: true})
	ident := identityapp.New(e.db.Users(), e.db.Workspaces(), e.db.Tokens())
	e.svc = botapp.New(e.db.Bots(), e.db.Variables(), ident, e.models, botapp.WithKnowledge(kb))
}

func TestKnowledgeIsStoredWithDraftAndVersion(t *testing.T) {
	e := newEnv(t)
	withKnowledge(e)
	ctx := context.Background()
	k := bot.KnowledgeSettings{KnowledgeIDs: []int64{41, 40, 41}, AutoCall: true, ShowSource: true, NoRecallReply: " Sorry. ",
		Retrieval: knowledge.Retrieval{Strategy: knowledge.StrategyFullText, MinScore: 0.3, RerankModel: "rr"}}
	b := e.create(t, bot.Config{Name: "kb", Knowledge: k})
	want := bot.KnowledgeSettings{KnowledgeIDs: []int64{41, 40}, AutoCall: true, ShowSource: true, NoRecallReply: "Sorry.",
		Retrieval: knowledge.Retrieval{Strategy: knowledge.StrategyFullText, TopK: bot.DefaultKnowledgeTopK, MinScore: 0.3, RerankModel: "rr"}}
	got, err := e.svc.Get(ctx, e.owner, b.ID)
	mustNot(t, err)
	if d := cmp.Diff(want, got.Draft.Knowledge); d != "" {
		t.Fatalf("stored knowledge (-want +got):\n%s", d)
	}
	if got.Draft.Model.ModelID != "plain" {
		t.Errorf("automatic recall needs no tools; model = %q", got.Draft.Model.ModelID)
	}
	v, err := e.svc.Publish(ctx, e.owner, b.ID, nil)
	mustNot(t, err)
	if d := cmp.Diff(want, v.Config.Knowledge); d != "" {
		t.Fatalf("published knowledge (-want +got):\n%s", d)
	}
	onDemand := e.create(t, bot.Config{Name: "tool", Knowledge: bot.KnowledgeSettings{KnowledgeIDs: []int64{40}}})
	if onDemand.Draft.Model.ModelID != "tooly" {
		t.Errorf("on-demand knowledge is a tool; model = %q, want tooly", onDemand.Draft.Model.ModelID)
	}
}

func TestKnowledgeRefused(t *testing.T) {
	e := newEnv(t)
	withKnowledge(e)
	kb := func(k bot.KnowledgeSettings) bot.Config {
		if k.KnowledgeIDs == nil {
			k.KnowledgeIDs = []int64{40}
		}
		k.AutoCall = true
		return bot.Config{Name: "x", Knowledge: k}
	}
	many := make([]int64, bot.MaxKnowledgeBases+1)
	for i := range many {
		many[i] = int64(i + 1)
	}
	cases := []struct {
		name         string
		cfg          bot.Config
		field, words string
	}{
		{"another workspace's base", kb(bot.KnowledgeSettings{KnowledgeIDs: []int64{40, 50}}), "knowledge.dataset_ids[1]", "50 does not exist in this workspace"},
		{"unknown base", kb(bot.KnowledgeSettings{KnowledgeIDs: []int64{99}}), "knowledge.dataset_ids[0]", "99 does not exist"},
		{"bad id", kb(bot.KnowledgeSettings{KnowledgeIDs: []int64{-1}}), "knowledge.dataset_ids[0]", "must be a knowledge base id"},
		{"too many", kb(bot.KnowledgeSettings{KnowledgeIDs: many}), "knowledge.dataset_ids", "at most 20"},
		{"strategy", kb(bot.KnowledgeSettings{Retrieval: knowledge.Retrieval{Strategy: 2}}), "knowledge.search_strategy", "0 (semantic), 1 (hybrid) or 20"},
		{"top_k", kb(bot.KnowledgeSettings{Retrieval: knowledge.Retrieval{TopK: 51}}), "knowledge.top_k", "between 1 and 50"},
		{"min_score", kb(bot.KnowledgeSettings{Retrieval: knowledge.Retrieval{MinScore: 1.5}}), "knowledge.min_score", "between 0 and 1"},
		{"unknown rerank model", kb(bot.KnowledgeSettings{Retrieval: knowledge.Retrieval{RerankModel: "nope"}}), "knowledge.rerank_model", `"nope" does not exist`},
		{"chat model as reranker", kb(bot.KnowledgeSettings{Retrieval: knowledge.Retrieval{RerankModel: "plain"}}), "knowledge.rerank_model", `of kind "chat"`},
		{"embedding model as reranker", kb(bot.KnowledgeSettings{Retrieval: knowledge.Retrieval{RerankModel: "emb"}}), "knowledge.rerank_model", `of kind "embedding"`},
		{"disabled rerank model", kb(bot.KnowledgeSettings{Retrieval: knowledge.Retrieval{RerankModel: "rr-off"}}), "knowledge.rerank_model", "is disabled"},
		{"no-recall reply", kb(bot.KnowledgeSettings{NoRecallReply: strings.Repeat("x", 2001)}), "knowledge.no_recall_reply", "at most 2000"},
		{"on demand without tools", bot.Config{Name: "x", Model: bot.ModelSettings{ModelID: "plain"},
			Knowledge: bot.KnowledgeSettings{KnowledgeIDs: []int64{40}}}, "model.model_id", "does not support tools"},
		{"client tool named like the search tool", bot.Config{Name: "x", ClientTools: []bot.ClientTool{{Name: bot.KnowledgeTool}}},
			"client_tools[0].name", "already a tool"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			_, err := e.svc.Create(context.Background(), e.owner, e.ws.ID, c.cfg)
			wantField(t, err, c.field, c.words)
		})
	}
	plain := newEnv(t)
	_, err := plain.svc.Create(context.Background(), plain.owner, plain.ws.ID, kb(bot.KnowledgeSettings{}))
	wantField(t, err, "knowledge.dataset_ids", "not available on this server")
}
