// Package knowledge holds the use cases of knowledge bases (Coze's
// datasets): create and manage knowledge bases and their documents,
// index documents asynchronously (parse, chunk, embed, store) in workers
// of any process, edit chunks by hand, search (semantic, full text,
// hybrid, with optional rerank and query rewrite), and recall for bots and
// workflows.
//
// Every use case that takes a caller checks the token's knowledge scope
// and the caller's membership of the knowledge base's workspace. A
// knowledge base the caller cannot reach answers exactly like an unknown
// one ("knowledge base 42 not found"), so ids of other workspaces do not
// leak.
package knowledge

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"strconv"
	"time"

	"github.com/pergola-ai/pergola/domain/errs"
	"github.com/pergola-ai/pergola/domain/file"
	"github.com/pergola-ai/pergola/domain/identity"
	"github.com/pergola-ai/pergola/domain/knowledge"
)

// Authorizer checks that a caller may act in a workspace with at least a
// role; *identity.Service implements it. It fails with errs.ErrForbidden.
type Authorizer interface {
	Authorize(ctx context.Context, p identity.Principal, workspaceID int64, min identity.Role) (*identity.Member, error)
}

// Piece is one chunk-to-be of a document: its text, the heading path of a
// markdown section, the row of table knowledge.
type Piece = knowledge.Piece

// Source is a document's content handed to the Chunker.
type Source struct {
	FileType string // extension without the dot: txt, md, html, pdf, docx, csv, xlsx, json
	Body     io.Reader
	URL      string // the page's address, for web documents (readable text only)
}

// Chunker parses a document and cuts it into pieces by a strategy (table
// knowledge: one piece per row, indexed columns as cols says). A document
// that cannot be parsed fails with errs.ErrInvalid, saying why in words a
// builder can act on; the worker stores that as the failure reason.
type Chunker interface {
	Chunk(ctx context.Context, src Source, s knowledge.ChunkStrategy, cols []knowledge.Column) ([]Piece, error)
}

// Embedder embeds texts with a model of kind embedding, batching and
// retrying as the provider needs; one vector per text, in order.
type Embedder interface {
	Embed(ctx context.Context, modelID string, texts []string) ([][]float32, error)
}

// Reranker orders documents by relevance to a query with a model of kind
// rerank, keeping the best topN. A model that is unknown or not of kind
// rerank fails with errs.ErrInvalid naming "rerank_model".
type Reranker interface {
	Rerank(ctx context.Context, modelID, query string, docs []string, topN int) ([]knowledge.Ranked, error)
}

// Rewriter rewrites a query from the recent conversation into one that
// stands alone (Coze's use_rewrite), with a chat model ("" for the
// platform's choice).
type Rewriter interface {
	Rewrite(ctx context.Context, modelID, query string, history []string) (string, error)
}

// EmbeddingModel is what a knowledge base needs to know of its model.
type EmbeddingModel struct {
	ID         string
	Dimensions int // 0 when the model entry does not say
}

// Models resolves the embedding model of a new knowledge base: id ""
// means the platform's default. A model that is unknown, disabled or not
// of kind embedding fails with errs.ErrInvalid naming "embedding_model";
// no default at all fails with errs.ErrInvalid too, saying to configure
// one.
type Models interface {
	EmbeddingModel(ctx context.Context, id string) (*EmbeddingModel, error)
}

// Files reads uploaded files of a workspace and stores base64 content
// given with a document as a file; the file service implements it.
type Files interface {
	Of(ctx context.Context, workspaceID, id int64) (*file.File, error)
	Content(ctx context.Context, workspaceID, id int64) (*file.File, []byte, error)
	Save(ctx context.Context, workspaceID, userID int64, name string, data []byte) (*file.File, error)
}

// Fetcher fetches a web page through the guarded egress client: private
// addresses refused, size and time capped. It returns the body and its
// content type; failures are errors a builder can read.
type Fetcher interface {
	Fetch(ctx context.Context, url string) ([]byte, string, error)
}

// Publisher puts a message on a topic of the work queue; memory.Queue and
// redis.Queue implement it.
type Publisher interface {
	Publish(ctx context.Context, topic string, payload []byte) (string, error)
}

// IDs hands out ids for documents and chunks.
type IDs interface{ Next() int64 }

// Deps is what the service needs. Chunker, Embedder, Files and Fetcher
// are used by the worker; Reranker and Rewriter may be nil (then rerank
// and rewrite are refused, or skipped for Recall).
type Deps struct {
	Bases     knowledge.BaseStore
	Documents knowledge.DocumentStore
	Index     knowledge.Index
	Access    Authorizer
	Models    Models
	Chunker   Chunker
	Embedder  Embedder
	Reranker  Reranker
	Rewriter  Rewriter
	Files     Files
	Fetcher   Fetcher
	Queue     Publisher
	IDs       IDs
	Limits    knowledge.Limits
	// Owner names this process in leases; Lease is how long a claim
	// lasts without renewal (default 30s); MaxAttempts how many claims a
	// document gets before it fails (default 3).
	Owner       string
	Lease       time.Duration
	MaxAttempts int
	// SingleProcess says this process is the only one of its deployment
	// (the embedded default: SQLite and the in-memory queue): when its
	// worker starts, no other process can hold a lease, so it queues
	// again at once every document a previous run left processing
	// instead of waiting for their leases to end.
	SingleProcess bool
	// EmbedBatch is how many chunks are embedded per call (default 32).
	EmbedBatch int
	// Shares, when set, gives each workspace its share of the indexing
	// workers of this process (see takeShare).
	Shares Gate
	Log    *slog.Logger
	Now    func() time.Time
}

// Service runs the knowledge use cases.
type Service struct {
	d      Deps
	states *docStates
}

// New returns the service, filling defaults.
func New(d Deps) *Service {
	if d.Log == nil {
		d.Log = slog.New(slog.DiscardHandler)
	}
	if d.Now == nil {
		d.Now = time.Now
	}
	if d.Lease <= 0 {
		d.Lease = 30 * time.Second
	}
	if d.MaxAttempts <= 0 {
		d.MaxAttempts = 3
	}
	if d.EmbedBatch <= 0 {
		d.EmbedBatch = 32
	}
	if d.Owner == "" {
		d.Owner = "knowledge-" + strconv.FormatInt(d.Now().UnixNano(), 36)
	}
	d.Limits = d.Limits.WithDefaults()
	return &Service{d: d, states: newDocStates()}
}

// Limits returns the limits in force.
func (s *Service) Limits() knowledge.Limits { return s.d.Limits }

func baseNotFound(id int64) error {
	return errs.NotFound("knowledge base", strconv.FormatInt(id, 10))
}

func documentNotFound(id int64) error {
	return errs.NotFound("document", strconv.FormatInt(id, 10))
}

// reach loads a knowledge base for a caller whose token has the knowledge
// scope and who is a member of its workspace, and returns the membership
// with it. A knowledge base the caller may not reach is reported as not
// found.
func (s *Service) reach(ctx context.Context, p identity.Principal, id int64) (*knowledge.Base, *identity.Member, error) {
	if err := p.RequireScope(identity.ScopeKnowledge); err != nil {
		return nil, nil, err
	}
	b, err := s.d.Bases.GetBase(ctx, id)
	if errors.Is(err, errs.ErrNotFound) {
		return nil, nil, baseNotFound(id)
	}
	if err != nil {
		return nil, nil, fmt.Errorf("load knowledge base %d: %w", id, err)
	}
	m, err := s.d.Access.Authorize(ctx, p, b.WorkspaceID, identity.RoleMember)
	if errors.Is(err, errs.ErrForbidden) {
		return nil, nil, baseNotFound(id)
	}
	if err != nil {
		return nil, nil, fmt.Errorf("load knowledge base %d: %w", id, err)
	}
	return b, m, nil
}

// enter checks a caller acting in a workspace: the knowledge scope and
// membership (errs.ErrForbidden otherwise).
func (s *Service) enter(ctx context.Context, p identity.Principal, workspaceID int64) error {
	if err := p.RequireScope(identity.ScopeKnowledge); err != nil {
		return err
	}
	if workspaceID <= 0 {
		return errs.Invalid("workspace_id", "is required")
	}
	_, err := s.d.Access.Authorize(ctx, p, workspaceID, identity.RoleMember)
	return err
}

// mayManage allows deleting a knowledge base to its creator and to admins
// of its workspace.
func mayManage(b *knowledge.Base, p identity.Principal, m *identity.Member) error {
	if b.CreatorID == p.UserID || m.Role.AtLeast(identity.RoleAdmin) {
		return nil
	}
	return errs.Forbidden("only the knowledge base's creator or an admin of workspace %d may delete knowledge base %d", b.WorkspaceID, b.ID)
}
