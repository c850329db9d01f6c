package knowledge_test

import (
	"context"
	"errors"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	identityapp "github.com/pergola-ai/pergola/application/identity"
	knowledgeapp "github.com/pergola-ai/pergola/application/knowledge"
	"github.com/pergola-ai/pergola/domain/errs"
	"github.com/pergola-ai/pergola/domain/identity"
	"github.com/pergola-ai/pergola/domain/knowledge"
	"github.com/pergola-ai/pergola/infra/sqlstore"
)

// env is the knowledge service over a fresh SQLite database and the real
// access check of the identity service, with in-memory fakes for the
// index, the models, files, web pages and the queue, and a clock the test
// moves.
type env struct {
	db       *sqlstore.DB
	svc      *knowledgeapp.Service
	deps     knowledgeapp.Deps
	index    *memIndex
	embed    *hashEmbedder
	files    *memFiles
	pages    *pages
	queue    *queue
	rewriter *rewriter
	clock    *clock
	ws       identity.Workspace // owned by owner; member is a plain member
	other    identity.Workspace // owned by stranger
	owner    identity.Principal
	member   identity.Principal
	stranger identity.Principal
}

type clock struct {
	mu  sync.Mutex
	now time.Time
}

func (c *clock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.now
}

func (c *clock) advance(d time.Duration) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.now = c.now.Add(d)
}

func newEnv(t *testing.T, opts ...func(*knowledgeapp.Deps)) *env {
	t.Helper()
	ctx := context.Background()
	db, err := sqlstore.Open(ctx, sqlstore.Config{SQLitePath: filepath.Join(t.TempDir(), "p.db")})
	mustNot(t, err)
	t.Cleanup(func() { _ = db.Close() })
	_, err = db.Migrate(ctx)
	mustNot(t, err)
	e := &env{db: db, index: newMemIndex(), embed: &hashEmbedder{}, files: newMemFiles(), pages: &pages{body: map[string]string{}},
		queue: &queue{}, rewriter: &rewriter{}, clock: &clock{now: time.Now().UTC()}}
	ident := identityapp.New(db.Users(), db.Workspaces(), db.Tokens())
	e.deps = knowledgeapp.Deps{Bases: db.Knowledge(), Documents: db.Knowledge(), Index: e.index, Access: ident, Models: models{},
		Chunker: blockChunker{}, Embedder: e.embed, Reranker: reverser{}, Rewriter: e.rewriter, Files: e.files, Fetcher: e.pages,
		Queue: e.queue, IDs: db.IDs(), Owner: "test", Lease: 30 * time.Second, EmbedBatch: 2, Now: e.clock.Now}
	for _, o := range opts {
		o(&e.deps)
	}
	e.svc = knowledgeapp.New(e.deps)
	owner, member, stranger := e.user(t, "owner"), e.user(t, "member"), e.user(t, "stranger")
	e.ws = e.workspace(t, "team", owner)
	e.other = e.workspace(t, "elsewhere", stranger)
	mustNot(t, db.Workspaces().AddMember(ctx, &identity.Member{WorkspaceID: e.ws.ID, UserID: member, Role: identity.RoleMember}))
	e.owner, e.member, e.stranger = principal(owner), principal(member), principal(stranger)
	return e
}

func (e *env) user(t *testing.T, name string) int64 {
	t.Helper()
	u := &identity.User{Email: name + "@example.com", Name: name}
	mustNot(t, e.db.Users().CreateUser(context.Background(), u))
	return u.ID
}

func (e *env) workspace(t *testing.T, name string, owner int64) identity.Workspace {
	t.Helper()
	ws := &identity.Workspace{Name: name, Kind: identity.WorkspaceTeam, OwnerID: owner}
	mustNot(t, e.db.Workspaces().CreateWorkspace(context.Background(), ws))
	return *ws
}

func principal(id int64) identity.Principal {
	return identity.Principal{UserID: id, Scopes: []string{identity.ScopeAll}}
}

// base creates a knowledge base in the team workspace as the owner.
func (e *env) base(t *testing.T, name string, f knowledge.Format) *knowledge.Base {
	t.Helper()
	b, err := e.svc.Create(context.Background(), e.owner, knowledgeapp.CreateInput{WorkspaceID: e.ws.ID, Name: name, Format: f})
	mustNot(t, err)
	return b
}

// add adds documents as the owner and indexes every queued one.
func (e *env) add(t *testing.T, kb int64, ins ...knowledgeapp.DocumentInput) []knowledge.Document {
	t.Helper()
	docs, err := e.svc.AddDocuments(context.Background(), e.owner, kb, ins)
	mustNot(t, err)
	e.work(t)
	return docs
}

// work handles every queued message, as a worker would.
func (e *env) work(t *testing.T) {
	t.Helper()
	for _, m := range e.queue.take() {
		mustNot(t, e.svc.HandleIndex(context.Background(), m))
	}
}

func (e *env) doc(t *testing.T, id int64) *knowledge.Document {
	t.Helper()
	d, err := e.db.Knowledge().GetDocument(context.Background(), id)
	mustNot(t, err)
	return d
}

func mustNot(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}

func wantErr(t *testing.T, err, target error, text string) {
	t.Helper()
	if !errors.Is(err, target) {
		t.Fatalf("error = %v, want one matching %v", err, target)
	}
	if !strings.Contains(err.Error(), text) {
		t.Errorf("error %q does not mention %q", err, text)
	}
}

func wantField(t *testing.T, err error, field, text string) {
	t.Helper()
	var fe *errs.FieldError
	if !errors.As(err, &fe) {
		t.Fatalf("error = %v, want a field error on %s", err, field)
	}
	if fe.Field != field || !strings.Contains(fe.Reason, text) {
		t.Errorf("error = %q, want field %s and a reason mentioning %q", err, field, text)
	}
}

const handbook = `Holidays: every employee has 30 days of paid leave per year.

Expenses: receipts go to the finance team within two weeks.

The office opens at eight and closes at six.

花园机器人的秘密代号是青蛙。`

func texts(rs []knowledge.Recalled) []string {
	out := make([]string, len(rs))
	for i, r := range rs {
		out[i] = r.Chunk.Text
	}
	return out
}
