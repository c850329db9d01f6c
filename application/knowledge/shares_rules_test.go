package knowledge_test

import (
	"context"
	"fmt"
	"testing"

	knowledgeapp "github.com/pergola-ai/pergola/application/knowledge"
	"github.com/pergola-ai/pergola/domain/knowledge"
	"github.com/pergola-ai/pergola/infra/fairshare"
)

// While one workspace holds its whole share of the indexing workers, its
// queued documents go back to the end of the queue and another
// workspace's document, queued behind them, is indexed.
func TestOneWorkspacesDocumentsDoNotStarveAnothers(t *testing.T) {
	slots := fairshare.New(fairshare.Config{Name: "knowledge", Slots: 2, Share: 0.5})
	e := newEnv(t, func(d *knowledgeapp.Deps) { d.Shares = slots })
	ctx := context.Background()
	busy := e.base(t, "Busy", knowledge.FormatText)
	var ins []knowledgeapp.DocumentInput
	for i := range 3 {
		ins = append(ins, knowledgeapp.DocumentInput{Name: fmt.Sprint("doc ", i), Text: handbook})
	}
	many, err := e.svc.AddDocuments(ctx, e.owner, busy.ID, ins)
	mustNot(t, err)
	quiet, err := e.svc.Create(ctx, e.stranger, knowledgeapp.CreateInput{WorkspaceID: e.other.ID, Name: "Quiet", Format: knowledge.FormatText})
	mustNot(t, err)
	one, err := e.svc.AddDocuments(ctx, e.stranger, quiet.ID, []knowledgeapp.DocumentInput{{Name: "one", Text: handbook}})
	mustNot(t, err)

	leave, err := slots.Enter(ctx, e.ws.ID, 0) // another worker indexes one of the busy workspace's documents
	mustNot(t, err)
	e.work(t) // this worker goes through the queue once
	if got := e.doc(t, one[0].ID); got.Status != knowledge.StatusReady {
		t.Fatalf("the other workspace's document is %v behind the busy one's, want ready", got.Status)
	}
	for _, d := range many {
		if got := e.doc(t, d.ID); got.Status != knowledge.StatusProcessing {
			t.Fatalf("document %d of the busy workspace is %v while its share was full, want still processing", d.ID, got.Status)
		}
	}
	leave()
	e.work(t) // queued again at the end: indexed now
	for _, d := range many {
		if got := e.doc(t, d.ID); got.Status != knowledge.StatusReady {
			t.Fatalf("document %d is %v after its turn, want ready", d.ID, got.Status)
		}
	}
}
