package knowledge_test

import (
	"context"
	"fmt"
	"strings"
	"testing"

	knowledgeapp "github.com/pergola-ai/pergola/application/knowledge"
	"github.com/pergola-ai/pergola/domain/errs"
	"github.com/pergola-ai/pergola/domain/knowledge"
)

func TestSearchStrategies(t *testing.T) {
	e := newEnv(t)
	ctx := context.Background()
	kb := e.base(t, "Handbook", knowledge.FormatText)
	docs := e.add(t, kb.ID, knowledgeapp.DocumentInput{Name: "handbook.txt", Text: handbook})
	cases := []struct {
		name  string
		query string
		r     knowledge.Retrieval
		want  string
	}{
		{"semantic", "how many days of paid leave", knowledge.Retrieval{TopK: 1}, "Holidays: every employee has 30 days of paid leave per year."},
		{"full text", "receipts finance", knowledge.Retrieval{Strategy: knowledge.StrategyFullText, TopK: 1}, "Expenses: receipts go to the finance team within two weeks."},
		{"hybrid", "when does the office open", knowledge.Retrieval{Strategy: knowledge.StrategyHybrid, TopK: 1}, "The office opens at eight and closes at six."},
		{"chinese full text", "机器人代号", knowledge.Retrieval{Strategy: knowledge.StrategyFullText, TopK: 1}, "花园机器人的秘密代号是青蛙。"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			hits, err := e.svc.Search(ctx, e.member, kb.ID, c.query, c.r)
			mustNot(t, err)
			if len(hits) != 1 || hits[0].Chunk.Text != c.want {
				t.Fatalf("hits = %q, want %q", texts(hits), c.want)
			}
			h := hits[0]
			if h.DocumentName != "handbook.txt" || h.KnowledgeName != "Handbook" || h.Chunk.DocumentID != docs[0].ID || h.Score <= 0 {
				t.Errorf("hit = %+v", h)
			}
		})
	}
	hits, err := e.svc.Search(ctx, e.owner, kb.ID, "office employee finance", knowledge.Retrieval{Strategy: knowledge.StrategyHybrid})
	mustNot(t, err)
	if len(hits) < 3 || hits[0].Score > 1 || hits[0].Score < hits[1].Score {
		t.Fatalf("hybrid scores are not fused into 0..1 best first: %+v", hits)
	}
	strict, err := e.svc.Search(ctx, e.owner, kb.ID, "office employee finance", knowledge.Retrieval{Strategy: knowledge.StrategyHybrid, MinScore: hits[1].Score})
	mustNot(t, err)
	if len(strict) != 2 {
		t.Fatalf("min_score %g kept %d hits, want 2", hits[1].Score, len(strict))
	}
}

func TestSearchRefusesBadSettingsAndStrangers(t *testing.T) {
	e := newEnv(t)
	ctx := context.Background()
	kb := e.base(t, "Handbook", knowledge.FormatText)
	for _, c := range []struct {
		query, field, text string
		r                  knowledge.Retrieval
	}{
		{"", "query", "required", knowledge.Retrieval{}},
		{"q", "top_k", "between 1 and 50", knowledge.Retrieval{TopK: 51}},
		{"q", "min_score", "between 0 and 1", knowledge.Retrieval{MinScore: 2}},
		{"q", "search_strategy", "20 (full text)", knowledge.Retrieval{Strategy: 5}},
	} {
		_, err := e.svc.Search(ctx, e.owner, kb.ID, c.query, c.r)
		wantField(t, err, c.field, c.text)
	}
	_, err := e.svc.Search(ctx, e.stranger, kb.ID, "q", knowledge.Retrieval{})
	wantErr(t, err, errs.ErrNotFound, "knowledge base")
}

func TestSearchReturnsOnlyReadyDocuments(t *testing.T) {
	e := newEnv(t)
	ctx := context.Background()
	kb := e.base(t, "Handbook", knowledge.FormatText)
	docs := e.add(t, kb.ID, knowledgeapp.DocumentInput{Name: "a", Text: handbook})
	_, err := e.svc.Refresh(ctx, e.owner, kb.ID, docs[0].ID) // processing again; its old chunks are still indexed
	mustNot(t, err)
	hits, err := e.svc.Search(ctx, e.owner, kb.ID, "paid leave", knowledge.Retrieval{})
	mustNot(t, err)
	if len(hits) != 0 {
		t.Fatalf("a processing document's chunks were returned: %q", texts(hits))
	}
	e.work(t)
	hits, err = e.svc.Search(ctx, e.owner, kb.ID, "paid leave", knowledge.Retrieval{})
	mustNot(t, err)
	if len(hits) == 0 {
		t.Fatal("nothing found once the document is ready again")
	}
}

func TestRerank(t *testing.T) {
	e := newEnv(t)
	ctx := context.Background()
	kb := e.base(t, "Handbook", knowledge.FormatText)
	e.add(t, kb.ID, knowledgeapp.DocumentInput{Name: "a", Text: handbook})
	plain, err := e.svc.Search(ctx, e.owner, kb.ID, "office employee finance", knowledge.Retrieval{Strategy: knowledge.StrategyFullText, TopK: 3})
	mustNot(t, err)
	reranked, err := e.svc.Search(ctx, e.owner, kb.ID, "office employee finance", knowledge.Retrieval{Strategy: knowledge.StrategyFullText, TopK: 3, RerankModel: "rr"})
	mustNot(t, err)
	if len(reranked) != 3 || reranked[0].Chunk.ID != plain[len(plain)-1].Chunk.ID {
		t.Fatalf("reranked = %q, plain = %q: the reverser's order was not applied", texts(reranked), texts(plain))
	}
	failing := newEnv(t, func(d *knowledgeapp.Deps) { d.Reranker = reverser{fail: true} })
	fkb := failing.base(t, "Handbook", knowledge.FormatText)
	failing.add(t, fkb.ID, knowledgeapp.DocumentInput{Name: "a", Text: handbook})
	_, err = failing.svc.Search(ctx, failing.owner, fkb.ID, "office", knowledge.Retrieval{RerankModel: "rr"})
	wantErr(t, err, errs.ErrUnavailable, "rerank service down")
	hits, err := failing.svc.Recall(ctx, knowledgeapp.RecallQuery{WorkspaceID: failing.ws.ID, KnowledgeIDs: []int64{fkb.ID}, Query: "office",
		Retrieval: knowledge.Retrieval{RerankModel: "rr"}})
	mustNot(t, err)
	if len(hits) == 0 {
		t.Fatal("recall failed with its reranker instead of keeping the search order")
	}
	gone := newEnv(t, func(d *knowledgeapp.Deps) { d.Reranker = reverser{unknown: true} })
	gkb := gone.base(t, "Handbook", knowledge.FormatText)
	gone.add(t, gkb.ID, knowledgeapp.DocumentInput{Name: "a", Text: handbook})
	_, err = gone.svc.Search(ctx, gone.owner, gkb.ID, "office", knowledge.Retrieval{RerankModel: "removed"})
	wantErr(t, err, errs.ErrInvalid, `no model "removed"`)
	hits, err = gone.svc.Recall(ctx, knowledgeapp.RecallQuery{WorkspaceID: gone.ws.ID, KnowledgeIDs: []int64{gkb.ID}, Query: "office",
		Retrieval: knowledge.Retrieval{RerankModel: "removed"}})
	mustNot(t, err)
	if len(hits) == 0 {
		t.Fatal("recall with a rerank model removed since the bot was saved found nothing instead of keeping the search order")
	}
}

func TestRecallForBotsAndWorkflows(t *testing.T) {
	e := newEnv(t)
	ctx := context.Background()
	hb := e.base(t, "Handbook", knowledge.FormatText)
	e.add(t, hb.ID, knowledgeapp.DocumentInput{Name: "a", Text: handbook})
	gone := e.base(t, "Gone", knowledge.FormatText)
	mustNot(t, e.svc.Delete(ctx, e.owner, gone.ID))
	theirs, err := e.svc.Create(ctx, e.stranger, knowledgeapp.CreateInput{WorkspaceID: e.other.ID, Name: "Theirs"})
	mustNot(t, err)
	q := knowledgeapp.RecallQuery{WorkspaceID: e.ws.ID, KnowledgeIDs: []int64{gone.ID, theirs.ID, hb.ID, hb.ID}, Query: "paid leave",
		Retrieval: knowledge.Retrieval{TopK: 2}}
	hits, err := e.svc.Recall(ctx, q)
	mustNot(t, err)
	if len(hits) == 0 || hits[0].Chunk.Text != "Holidays: every employee has 30 days of paid leave per year." {
		t.Fatalf("recall = %q", texts(hits))
	}
	for _, h := range hits {
		if h.Chunk.KnowledgeID != hb.ID {
			t.Fatalf("recall returned a chunk of knowledge base %d", h.Chunk.KnowledgeID)
		}
	}
	q.KnowledgeIDs = []int64{gone.ID, theirs.ID}
	hits, err = e.svc.Recall(ctx, q)
	if err != nil || len(hits) != 0 {
		t.Fatalf("recall of deleted and foreign knowledge bases = %v, %v; want nothing and no error", hits, err)
	}

	q = knowledgeapp.RecallQuery{WorkspaceID: e.ws.ID, KnowledgeIDs: []int64{hb.ID}, Query: "and the chinese one?",
		History: []string{"what is the secret code of the 花园机器人"}, Retrieval: knowledge.Retrieval{TopK: 1, Strategy: knowledge.StrategyFullText, Rewrite: true}}
	hits, err = e.svc.Recall(ctx, q)
	mustNot(t, err)
	if len(e.rewriter.got) != 1 || len(hits) != 1 || hits[0].Chunk.Text != "花园机器人的秘密代号是青蛙。" {
		t.Fatalf("rewritten recall = %q (rewriter saw %q)", texts(hits), e.rewriter.got)
	}
	q.Retrieval.TopK = 500
	if _, err := e.svc.Recall(ctx, q); err != nil {
		t.Fatalf("a bot's top_k of 500 is clamped, not refused: %v", err)
	}
}

// TestSearchLooksPastDocumentsNotReady: chunks of a document being
// indexed again would fill the first candidates of every strategy; the
// search leaves them out and still finds the ready document's chunk,
// embedding the query once.
func TestSearchLooksPastDocumentsNotReady(t *testing.T) {
	e := newEnv(t)
	ctx := context.Background()
	kb := e.base(t, "Handbook", knowledge.FormatText)
	var rules []string
	for i := range 40 {
		rules = append(rules, fmt.Sprintf("Paid leave rule %d: paid leave of paid leave days is paid leave.", i))
	}
	docs := e.add(t, kb.ID, knowledgeapp.DocumentInput{Name: "rules.txt", Text: strings.Join(rules, "\n\n")},
		knowledgeapp.DocumentInput{Name: "handbook.txt", Text: handbook})
	_, err := e.svc.Refresh(ctx, e.owner, kb.ID, docs[0].ID) // processing again; its 40 chunks are still indexed
	mustNot(t, err)
	for _, st := range []knowledge.Strategy{knowledge.StrategySemantic, knowledge.StrategyHybrid, knowledge.StrategyFullText} {
		before := e.embed.count()
		hits, err := e.svc.Search(ctx, e.owner, kb.ID, "paid leave", knowledge.Retrieval{Strategy: st, TopK: 1})
		mustNot(t, err)
		if len(hits) != 1 || hits[0].DocumentName != "handbook.txt" {
			t.Fatalf("strategy %d: hits = %q; want the ready handbook's chunk", st, texts(hits))
		}
		if calls := e.embed.count() - before; st != knowledge.StrategyFullText && calls != 1 {
			t.Errorf("strategy %d embedded the query %d times, want once", st, calls)
		}
	}
}
