package knowledge_test

import (
	"context"
	"encoding/json"
	"strings"
	"testing"
	"time"

	knowledgeapp "github.com/pergola-ai/pergola/application/knowledge"
	appqueue "github.com/pergola-ai/pergola/application/queue"
	"github.com/pergola-ai/pergola/domain/errs"
	"github.com/pergola-ai/pergola/domain/knowledge"
)

// crash claims a queued document as a worker of a process that then dies
// after storing part of its chunks: what a kill -9 mid-indexing leaves.
func (e *env) crash(t *testing.T, d knowledge.Document, partial int) {
	t.Helper()
	ctx := context.Background()
	now := e.clock.Now()
	c, err := e.db.Knowledge().Claim(ctx, d.ID, "dead-process", now, now.Add(30*time.Second))
	mustNot(t, err)
	var cs []knowledge.Chunk
	for i := range partial {
		cs = append(cs, knowledge.Chunk{ID: e.db.IDs().Next(), WorkspaceID: d.WorkspaceID, KnowledgeID: d.KnowledgeID, DocumentID: d.ID,
			Position: i, Text: "half-indexed " + c.Name, Vector: hashVector("half", 256)})
	}
	mustNot(t, e.index.PutChunks(ctx, cs))
	mustNot(t, e.db.Knowledge().Progress(ctx, d.ID, c.Generation, 40, int64(partial), now.Add(30*time.Second)))
}

func TestAKilledWorkerIsReplacedAndLeavesNothingBehind(t *testing.T) {
	e := newEnv(t)
	ctx := context.Background()
	kb := e.base(t, "Handbook", knowledge.FormatText)
	docs, err := e.svc.AddDocuments(ctx, e.owner, kb.ID, []knowledgeapp.DocumentInput{{Name: "a", Text: handbook}})
	mustNot(t, err)
	e.queue.take() // the message died with the process (an in-memory queue)
	e.crash(t, docs[0], 3)

	mustNot(t, e.svc.Reap(ctx))
	if msgs := e.queue.take(); len(msgs) != 0 {
		t.Fatalf("a live lease was reaped: %d messages", len(msgs))
	}
	e.clock.advance(31 * time.Second)
	mustNot(t, e.svc.Reap(ctx))
	msgs := e.queue.take()
	if len(msgs) != 1 {
		t.Fatalf("the reaper queued %d messages for the expired lease, want 1", len(msgs))
	}
	mustNot(t, e.svc.Reap(ctx)) // a second reaper (another process) finds nothing to do
	if n := len(e.queue.take()); n != 0 {
		t.Fatalf("the document was queued twice")
	}
	mustNot(t, e.svc.HandleIndex(ctx, msgs[0]))
	mustNot(t, e.svc.HandleIndex(ctx, msgs[0])) // a redelivery of the same message changes nothing

	got := e.doc(t, docs[0].ID)
	chunks := e.index.docChunks(e.ws.ID, kb.ID, docs[0].ID)
	if got.Status != knowledge.StatusReady || got.Chunks != 4 || len(chunks) != 4 || got.Generation != 2 {
		t.Fatalf("after the restart: %v with %d chunks (%d indexed), generation %d; want ready with exactly 4", got.Status, got.Chunks, len(chunks), got.Generation)
	}
	for i, c := range chunks {
		if strings.HasPrefix(c.Text, "half-indexed") || c.Position != i {
			t.Fatalf("chunk %d = %+v: the dead worker's chunks were kept", i, c)
		}
	}
}

func TestAStaleWorkersChunksAreSweptAndItsWritesRefused(t *testing.T) {
	e := newEnv(t)
	ctx := context.Background()
	kb := e.base(t, "Handbook", knowledge.FormatText)
	docs, err := e.svc.AddDocuments(ctx, e.owner, kb.ID, []knowledgeapp.DocumentInput{{Name: "a", Text: handbook}})
	mustNot(t, err)
	msgs := e.queue.take()
	e.crash(t, docs[0], 0)
	e.clock.advance(31 * time.Second)
	mustNot(t, e.svc.Reap(ctx))
	msgs = append(msgs, e.queue.take()...)

	// The stalled worker wakes after the new one cleared the document and
	// stores a chunk: the new attempt's sweep removes it.
	e.embed.block = make(chan struct{})
	done := make(chan error, 1)
	calls := e.embed.count()
	go func() { done <- e.svc.HandleIndex(ctx, msgs[1]) }()
	waitFor(t, func() bool { return e.embed.count() > calls }) // past clearing the document: embedding its first batch
	stale := knowledge.Chunk{ID: e.db.IDs().Next(), WorkspaceID: e.ws.ID, KnowledgeID: kb.ID, DocumentID: docs[0].ID, Text: "stale", Vector: hashVector("stale", 256)}
	mustNot(t, e.index.PutChunks(ctx, []knowledge.Chunk{stale}))
	wantErr(t, e.db.Knowledge().Progress(ctx, docs[0].ID, 1, 90, 1, e.clock.Now().Add(time.Hour)), errs.ErrConflict, "newer attempt")
	close(e.embed.block)
	mustNot(t, <-done)
	chunks := e.index.docChunks(e.ws.ID, kb.ID, docs[0].ID)
	if len(chunks) != 4 {
		t.Fatalf("%d chunks after the sweep, want 4: %+v", len(chunks), chunks)
	}
}

func waitFor(t *testing.T, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatal("condition not reached")
		}
		time.Sleep(5 * time.Millisecond)
	}
}

func TestAfterTooManyAttemptsTheDocumentFails(t *testing.T) {
	e := newEnv(t, func(d *knowledgeapp.Deps) { d.MaxAttempts = 2 })
	ctx := context.Background()
	kb := e.base(t, "Handbook", knowledge.FormatText)
	docs, err := e.svc.AddDocuments(ctx, e.owner, kb.ID, []knowledgeapp.DocumentInput{{Name: "a", Text: handbook}})
	mustNot(t, err)
	e.queue.take()
	for range 2 {
		e.crash(t, docs[0], 1)
		e.clock.advance(31 * time.Second)
		mustNot(t, e.svc.Reap(ctx))
		e.queue.take()
	}
	b, _ := json.Marshal(map[string]int64{"document_id": docs[0].ID})
	mustNot(t, e.svc.HandleIndex(ctx, b))
	got := e.doc(t, docs[0].ID)
	if got.Status != knowledge.StatusFailed || !strings.Contains(got.Reason, "its process stopped each time") {
		t.Fatalf("after repeated crashes: %v %q", got.Status, got.Reason)
	}
}

func TestProgressEstimatesTheTimeLeft(t *testing.T) {
	e := newEnv(t)
	ctx := context.Background()
	kb := e.base(t, "Handbook", knowledge.FormatText)
	docs, err := e.svc.AddDocuments(ctx, e.owner, kb.ID, []knowledgeapp.DocumentInput{{Name: "a", Text: handbook}, {Name: "b", Text: "bees"}})
	mustNot(t, err)
	now := e.clock.Now()
	c, err := e.db.Knowledge().Claim(ctx, docs[0].ID, "w", now, now.Add(time.Minute))
	mustNot(t, err)
	mustNot(t, e.db.Knowledge().Progress(ctx, docs[0].ID, c.Generation, 25, 1, now.Add(time.Minute)))
	e.clock.advance(10 * time.Second)
	ps, err := e.svc.Progress(ctx, e.member, kb.ID, []int64{docs[0].ID, docs[1].ID, 777})
	mustNot(t, err)
	if len(ps) != 2 {
		t.Fatalf("progress of %d documents, want 2", len(ps))
	}
	for _, p := range ps {
		switch p.ID {
		case docs[0].ID:
			if p.Progress != 25 || p.RemainingSeconds != 30 {
				t.Errorf("25%% after 10s: %d%%, %ds left; want 30s", p.Progress, p.RemainingSeconds)
			}
		case docs[1].ID:
			if p.RemainingSeconds != -1 {
				t.Errorf("not started: %ds left; want -1 (unknown)", p.RemainingSeconds)
			}
		}
	}
}

func TestWebDocumentsRefreshOnTheirSchedule(t *testing.T) {
	e := newEnv(t)
	ctx := context.Background()
	kb := e.base(t, "Web", knowledge.FormatText)
	e.pages.body["https://example.com/news"] = "Old news."
	docs := e.add(t, kb.ID, knowledgeapp.DocumentInput{URL: "https://example.com/news", UpdateRule: knowledge.UpdateRule{Auto: true, IntervalHours: 24}})
	e.pages.body["https://example.com/news"] = "Fresh news."
	mustNot(t, e.svc.RefreshDue(ctx))
	if n := len(e.queue.take()); n != 0 {
		t.Fatalf("refreshed before its interval: %d", n)
	}
	e.clock.advance(25 * time.Hour)
	mustNot(t, e.svc.RefreshDue(ctx))
	e.work(t)
	chunks := e.index.docChunks(e.ws.ID, kb.ID, docs[0].ID)
	if len(chunks) != 1 || chunks[0].Text != "Fresh news." || e.pages.count != 2 {
		t.Fatalf("after the refresh: %+v (fetched %d times)", chunks, e.pages.count)
	}
}

func TestADocumentDeletedWhileIndexedLeavesNoChunks(t *testing.T) {
	e := newEnv(t)
	ctx := context.Background()
	kb := e.base(t, "Handbook", knowledge.FormatText)
	docs, err := e.svc.AddDocuments(ctx, e.owner, kb.ID, []knowledgeapp.DocumentInput{{Name: "a", Text: handbook}})
	mustNot(t, err)
	msgs := e.queue.take()
	e.embed.block = make(chan struct{})
	calls := e.embed.count()
	done := make(chan error, 1)
	go func() { done <- e.svc.HandleIndex(ctx, msgs[0]) }()
	waitFor(t, func() bool { return e.embed.count() > calls })
	mustNot(t, e.svc.DeleteDocuments(ctx, e.owner, kb.ID, []int64{docs[0].ID}))
	close(e.embed.block) // the worker stores its batch after the delete, then finds the document gone
	mustNot(t, <-done)
	if n := len(e.index.docChunks(e.ws.ID, kb.ID, docs[0].ID)); n != 0 {
		t.Fatalf("%d chunks of a deleted document left in the index", n)
	}
}

// drainOnce is a Consumer that hands the messages published so far to
// the handler, once, then ends the worker.
type drainOnce struct {
	q      *queue
	stop   context.CancelFunc
	handed int
}

func (d *drainOnce) Consume(ctx context.Context, _, _, _ string, _ appqueue.ConsumeOptions, handle func(context.Context, appqueue.Message) error) error {
	defer d.stop()
	for _, m := range d.q.take() {
		d.handed++
		if err := handle(ctx, appqueue.Message{Payload: m}); err != nil {
			return err
		}
	}
	return nil
}

// TestASingleProcessRestartIndexesLeftDocumentsAtOnce: on the embedded
// default (one process, in-memory queue) a restarted worker indexes at
// once a document killed mid-indexing and one whose queued message was
// lost, without waiting for their leases; a worker of a deployment of
// several processes leaves live leases alone.
func TestASingleProcessRestartIndexesLeftDocumentsAtOnce(t *testing.T) {
	e := newEnv(t)
	ctx := context.Background()
	kb := e.base(t, "Handbook", knowledge.FormatText)
	docs, err := e.svc.AddDocuments(ctx, e.owner, kb.ID, []knowledgeapp.DocumentInput{{Name: "a", Text: handbook}, {Name: "b", Text: handbook}})
	mustNot(t, err)
	e.queue.take() // the messages died with the process
	e.crash(t, docs[0], 3)

	for _, single := range []bool{false, true} {
		deps := e.deps
		deps.SingleProcess = single
		wctx, cancel := context.WithCancel(ctx)
		c := &drainOnce{q: e.queue, stop: cancel}
		knowledgeapp.New(deps).Work(wctx, c, "knowledge", 1)
		if !single && c.handed != 0 {
			t.Fatalf("a worker of several processes queued %d documents held by live leases", c.handed)
		}
	}
	for _, d := range docs {
		got := e.doc(t, d.ID)
		chunks := e.index.docChunks(e.ws.ID, kb.ID, d.ID)
		if got.Status != knowledge.StatusReady || len(chunks) != 4 || strings.HasPrefix(chunks[0].Text, "half-indexed") {
			t.Fatalf("document %s after the restart: %v with %d chunks; want ready with its 4", d.Name, got.Status, len(chunks))
		}
	}
}
