package knowledge_test

import (
	"context"
	"path/filepath"
	"slices"
	"sync/atomic"
	"testing"
	"time"

	identityapp "github.com/pergola-ai/pergola/application/identity"
	"github.com/pergola-ai/pergola/application/invalidation"
	knowledgeapp "github.com/pergola-ai/pergola/application/knowledge"
	"github.com/pergola-ai/pergola/domain/errs"
	"github.com/pergola-ai/pergola/domain/identity"
	"github.com/pergola-ai/pergola/domain/knowledge"
	kbmysql "github.com/pergola-ai/pergola/infra/knowledgestore/mysql"
	kbsqlite "github.com/pergola-ai/pergola/infra/knowledgestore/sqlite"
	"github.com/pergola-ai/pergola/infra/memory"
	"github.com/pergola-ai/pergola/infra/sqlstore"
	"github.com/pergola-ai/pergola/infra/testenv"
)

// process is one Pergola process's knowledge service over a database and
// an index shared with another process.
type process struct {
	svc     *knowledgeapp.Service
	queue   *queue
	chunker *switchChunker
}

// switchChunker is blockChunker until fail is set; then every document
// fails to parse.
type switchChunker struct {
	blockChunker
	fail atomic.Bool
}

func (c *switchChunker) Chunk(ctx context.Context, src knowledgeapp.Source, s knowledge.ChunkStrategy, cols []knowledge.Column) ([]knowledgeapp.Piece, error) {
	if c.fail.Load() {
		return nil, errs.Invalid("file", "this document cannot be read")
	}
	return c.blockChunker.Chunk(ctx, src, s, cols)
}

// newProcess starts a process whose bases are cached, kept fresh by a hub
// on bus (standing for Redis between processes).
func newProcess(t *testing.T, db *sqlstore.DB, ix knowledge.Index, bus *memory.InvalidationBus, owner string) *process {
	hub := invalidation.NewHub(bus, invalidation.Options{TTL: time.Minute})
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() { defer close(done); hub.Run(ctx) }()
	t.Cleanup(func() { cancel(); <-done })
	p := &process{queue: &queue{}, chunker: &switchChunker{}}
	p.svc = knowledgeapp.New(knowledgeapp.Deps{Bases: knowledgeapp.NewCachedBases(db.Knowledge(), hub, 100), Documents: db.Knowledge(), Index: ix,
		Access: identityapp.New(db.Users(), db.Workspaces(), db.Tokens()), Models: models{}, Chunker: p.chunker,
		Embedder: &hashEmbedder{}, Reranker: reverser{}, Files: newMemFiles(), Fetcher: &pages{body: map[string]string{}},
		Queue: p.queue, IDs: db.IDs(), Owner: owner, Lease: 30 * time.Second, EmbedBatch: 2})
	return p
}

// work indexes every document the process queued.
func (p *process) work(t *testing.T) {
	t.Helper()
	for _, m := range p.queue.take() {
		mustNot(t, p.svc.HandleIndex(context.Background(), m))
	}
}

// TestDocumentStatesFollowOtherProcessesSQLite and ...MariaDB: a process
// recalls from the document states it cached at the index revision; a
// document another process refreshes (processing), fails, renames or
// deletes shows so in the first process's next recall, and so does a
// knowledge base the other renames (its cache is dropped through the hub).
func TestDocumentStatesFollowOtherProcessesSQLite(t *testing.T) {
	dir := t.TempDir()
	open := func() (*sqlstore.DB, knowledge.Index) {
		db, err := sqlstore.Open(context.Background(), sqlstore.Config{SQLitePath: filepath.Join(dir, "p.db")})
		mustNot(t, err)
		t.Cleanup(func() { _ = db.Close() })
		ix, err := kbsqlite.Open(context.Background(), filepath.Join(dir, "knowledge.db"))
		mustNot(t, err)
		t.Cleanup(func() { _ = ix.Close() })
		return db, ix
	}
	testStatesAcrossProcesses(t, open)
}

func TestDocumentStatesFollowOtherProcessesMariaDB(t *testing.T) {
	dsn := testenv.MySQL(t)
	open := func() (*sqlstore.DB, knowledge.Index) {
		db, err := sqlstore.Open(context.Background(), sqlstore.Config{DSN: dsn})
		mustNot(t, err)
		t.Cleanup(func() { _ = db.Close() })
		ix, err := kbmysql.Open(context.Background(), dsn)
		mustNot(t, err)
		t.Cleanup(func() { _ = ix.Close() })
		return db, ix
	}
	testStatesAcrossProcesses(t, open)
}

func testStatesAcrossProcesses(t *testing.T, open func() (*sqlstore.DB, knowledge.Index)) {
	ctx := context.Background()
	dbA, ixA := open()
	_, err := dbA.Migrate(ctx)
	mustNot(t, err)
	dbB, ixB := open()
	bus := memory.NewInvalidationBus()
	a, b := newProcess(t, dbA, ixA, bus, "a"), newProcess(t, dbB, ixB, bus, "b")
	owner, ws := ownerAndWorkspace(t, dbA)
	kb, err := a.svc.Create(ctx, owner, knowledgeapp.CreateInput{WorkspaceID: ws, Name: "Handbook", Format: knowledge.FormatText})
	mustNot(t, err)
	docs, err := a.svc.AddDocuments(ctx, owner, kb.ID, []knowledgeapp.DocumentInput{{Name: "leave", Text: "Holidays: 30 days of paid leave."},
		{Name: "office", Text: "The office opens at eight."}})
	mustNot(t, err)
	a.work(t)
	leave, office := docs[0].ID, docs[1].ID
	baseName := "Handbook"
	recalled := func(want ...string) {
		t.Helper()
		hits, err := a.svc.Recall(ctx, knowledgeapp.RecallQuery{WorkspaceID: ws, KnowledgeIDs: []int64{kb.ID}, Query: "paid leave office hours",
			Retrieval: knowledge.Retrieval{Strategy: knowledge.StrategyFullText, TopK: 10}})
		mustNot(t, err)
		var names []string
		for _, h := range hits {
			names = append(names, h.DocumentName)
			if h.KnowledgeName != baseName {
				t.Fatalf("process a recalled from knowledge base %q, want %q", h.KnowledgeName, baseName)
			}
		}
		slices.Sort(names)
		if !slices.Equal(names, want) {
			t.Fatalf("process a recalled from documents %q, want %q", names, want)
		}
	}
	recalled("leave", "office")

	_, err = b.svc.Refresh(ctx, owner, kb.ID, leave) // processing in b: its old chunks are still in the index
	mustNot(t, err)
	recalled("office")
	b.chunker.fail.Store(true)
	b.work(t)
	if d, err := dbA.Knowledge().GetDocument(ctx, leave); err != nil || d.Status != knowledge.StatusFailed {
		t.Fatalf("document after b's failed indexing: %+v, %v; want it failed", d, err)
	}
	recalled("office")
	b.chunker.fail.Store(false)
	_, err = b.svc.Refresh(ctx, owner, kb.ID, leave)
	mustNot(t, err)
	b.work(t)
	recalled("leave", "office")

	name := "opening hours"
	_, err = b.svc.UpdateDocument(ctx, owner, kb.ID, office, knowledgeapp.DocumentPatch{Name: &name})
	mustNot(t, err)
	recalled("leave", "opening hours")
	baseName = "Staff handbook"
	_, err = b.svc.Update(ctx, owner, kb.ID, knowledgeapp.Patch{Name: &baseName})
	mustNot(t, err)
	recalled("leave", "opening hours")
	mustNot(t, b.svc.DeleteDocuments(ctx, owner, kb.ID, []int64{office}))
	recalled("leave")
}

// ownerAndWorkspace creates a user and a team workspace it owns.
func ownerAndWorkspace(t *testing.T, db *sqlstore.DB) (identity.Principal, int64) {
	t.Helper()
	ctx := context.Background()
	u := &identity.User{Email: "owner@example.com", Name: "owner"}
	mustNot(t, db.Users().CreateUser(ctx, u))
	w := &identity.Workspace{Name: "team", Kind: identity.WorkspaceTeam, OwnerID: u.ID}
	mustNot(t, db.Workspaces().CreateWorkspace(ctx, w))
	return principal(u.ID), w.ID
}
