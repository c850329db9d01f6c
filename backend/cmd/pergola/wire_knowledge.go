package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"path/filepath"
	"strings"
	"sync"

	"github.com/cloudwego/eino/schema"

	fileapp "github.com/pergola-ai/pergola/application/file"
	identityapp "github.com/pergola-ai/pergola/application/identity"
	knowledgeapp "github.com/pergola-ai/pergola/application/knowledge"
	"github.com/pergola-ai/pergola/application/modelreg"
	"github.com/pergola-ai/pergola/backend/config"
	"github.com/pergola-ai/pergola/domain/errs"
	"github.com/pergola-ai/pergola/domain/file"
	"github.com/pergola-ai/pergola/domain/knowledge"
	"github.com/pergola-ai/pergola/domain/llm"
	"github.com/pergola-ai/pergola/infra/docparse"
	"github.com/pergola-ai/pergola/infra/egress"
	kbmysql "github.com/pergola-ai/pergola/infra/knowledgestore/mysql"
	"github.com/pergola-ai/pergola/infra/knowledgestore/pgvector"
	kbsqlite "github.com/pergola-ai/pergola/infra/knowledgestore/sqlite"
	"github.com/pergola-ai/pergola/infra/provider"
	"github.com/pergola-ai/pergola/infra/sqlstore"
)

// newKnowledge wires the knowledge use cases: the index the configuration
// names (pgvector on PERGOLA_VECTOR_DSN, else the platform's MySQL
// database, else an SQLite file in the data directory), documents parsed
// in Go, embeddings, rerank and query rewrite through the model registry,
// web pages through the egress guard; and starts the indexing worker on
// the shared queue, adding its stop (and the index's close) to cleanups.
// A recall's read of its knowledge bases is cached (see cache).
func newKnowledge(ctx context.Context, cfg config.Config, db *sqlstore.DB, cache *caches, ident *identityapp.Service, models *modelreg.Registry,
	modelHTTP *http.Client, files *fileapp.Service, queue workflowQueue, log *slog.Logger, cleanups *[]func(), sh *shares) (*knowledgeapp.Service, error) {
	index, closeIndex, err := openKnowledgeIndex(ctx, cfg)
	if err != nil {
		return nil, err
	}
	*cleanups = append(*cleanups, closeIndex)
	guard, err := egress.New(egress.Config{Allow: cfg.EgressAllow})
	if err != nil {
		return nil, fmt.Errorf("PERGOLA_EGRESS_ALLOW: %w", err)
	}
	f := provider.Factory{HTTPClient: modelHTTP, Embedders: provider.NewEmbedders()}
	k := cfg.Knowledge
	svc := knowledgeapp.New(knowledgeapp.Deps{Bases: cache.knowledgeBases(db), Documents: db.Knowledge(), Index: index, Access: ident,
		Models: embeddingModels{models}, Chunker: docChunker{docparse.Parser{}}, Embedder: embedder{reg: models, f: f},
		Reranker: reranker{models, f}, Rewriter: rewriter{models, f}, Files: knowledgeFiles{files},
		Fetcher: pageFetcher{client: guard.Client(), max: k.MaxFileBytes}, Queue: queue, IDs: db.IDs(), Log: log, Lease: k.Lease, Shares: sh.knowledge,
		SingleProcess: cfg.DBDSN == "" && cfg.RedisAddr == "",
		Limits:        knowledge.Limits{DocumentsPerBase: k.MaxDocuments, ChunksPerDocument: k.MaxChunks, FileBytes: k.MaxFileBytes}})
	if k.Workers > 0 {
		*cleanups = append(*cleanups, startKnowledgeWorker(ctx, svc, queue, cfg))
	}
	return svc, nil
}

// startKnowledgeWorker indexes queued documents until the returned stop
// is called; documents it held are indexed again by another process (or
// this one after a restart) when their lease ends.
func startKnowledgeWorker(ctx context.Context, svc *knowledgeapp.Service, queue workflowQueue, cfg config.Config) func() {
	wctx, cancel := context.WithCancel(context.WithoutCancel(ctx))
	done := make(chan struct{})
	go func() {
		defer close(done)
		svc.Work(wctx, queue, strings.Replace(workflowGroup(cfg), "workflow", "knowledge", 1), cfg.Knowledge.Workers)
	}()
	var once sync.Once
	return func() { once.Do(func() { cancel(); <-done }) }
}

// openKnowledgeIndex opens the configured knowledge index.
func openKnowledgeIndex(ctx context.Context, cfg config.Config) (knowledge.Index, func(), error) {
	switch {
	case cfg.Knowledge.VectorDSN != "":
		x, err := pgvector.Open(ctx, cfg.Knowledge.VectorDSN)
		if err != nil {
			return nil, nil, fmt.Errorf("PERGOLA_VECTOR_DSN: %w", err)
		}
		return x, func() { x.Close() }, nil
	case cfg.DBDSN != "":
		x, err := kbmysql.Open(ctx, cfg.DBDSN)
		if err != nil {
			return nil, nil, fmt.Errorf("PERGOLA_DB_DSN: knowledge index: %w", err)
		}
		return x, func() { x.Close() }, nil
	}
	x, err := kbsqlite.Open(ctx, filepath.Join(cfg.DataDir, "knowledge.db"))
	if err != nil {
		return nil, nil, fmt.Errorf("PERGOLA_DATA_DIR: knowledge index: %w", err)
	}
	return x, func() { x.Close() }, nil
}

// embeddingModels resolves knowledge bases' embedding models in the
// registry.
type embeddingModels struct{ reg *modelreg.Registry }

func (m embeddingModels) EmbeddingModel(ctx context.Context, id string) (*knowledgeapp.EmbeddingModel, error) {
	var model *llm.Model
	var err error
	if id == "" {
		model, err = m.reg.DefaultEmbedding(ctx)
	} else {
		model, err = modelOfKind(ctx, m.reg, id, llm.KindEmbedding, "embedding_model")
	}
	if err != nil {
		return nil, err
	}
	return &knowledgeapp.EmbeddingModel{ID: model.ID, Dimensions: model.Dimensions}, nil
}

// modelOfKind loads an enabled model of a kind, or fails with
// errs.ErrInvalid naming field.
func modelOfKind(ctx context.Context, reg *modelreg.Registry, id, kind, field string) (*llm.Model, error) {
	m, err := reg.Get(ctx, id)
	if errors.Is(err, errs.ErrNotFound) {
		return nil, errs.Invalid(field, "there is no model %q; pick a model of kind %s from GET /api/models", id, kind)
	}
	if err != nil {
		return nil, err
	}
	switch {
	case m.KindOrChat() != kind:
		return nil, errs.Invalid(field, "model %q is of kind %s; pick a model of kind %s", id, m.KindOrChat(), kind)
	case !m.Enabled:
		return nil, errs.Invalid(field, "model %q is disabled", id)
	}
	return m, nil
}

// embedder embeds through the provider factory; a wrong model is an error
// naming field (embedding_model when empty).
type embedder struct {
	reg   *modelreg.Registry
	f     provider.Factory
	field string
}

func (e embedder) Embed(ctx context.Context, id string, texts []string) ([][]float32, error) {
	field := e.field
	if field == "" {
		field = "embedding_model"
	}
	m, err := modelOfKind(ctx, e.reg, id, llm.KindEmbedding, field)
	if err != nil {
		return nil, err
	}
	return e.f.Embed(ctx, *m, texts)
}

// reranker reranks through the provider factory.
type reranker struct {
	reg *modelreg.Registry
	f   provider.Factory
}

func (r reranker) Rerank(ctx context.Context, id, query string, docs []string, topN int) ([]knowledge.Ranked, error) {
	m, err := modelOfKind(ctx, r.reg, id, llm.KindRerank, "rerank_model")
	if err != nil {
		return nil, err
	}
	return r.f.Rerank(ctx, *m, query, docs, topN)
}

// rewriter rewrites a recall's query from the conversation with a chat
// model: the one named, else the first enabled chat model.
type rewriter struct {
	reg *modelreg.Registry
	f   provider.Factory
}

const rewritePrompt = "Rewrite the user's last question so that it can be understood without the conversation, " +
	"for a search in a knowledge base. Keep its language. Answer with the rewritten question only."

func (r rewriter) Rewrite(ctx context.Context, id, query string, history []string) (string, error) {
	m, err := r.chatModel(ctx, id)
	if err != nil {
		return "", err
	}
	cm, err := r.f.ChatModel(ctx, *m)
	if err != nil {
		return "", err
	}
	convo := "Conversation:\n" + strings.Join(history, "\n") + "\n\nLast question: " + query
	out, err := cm.Generate(ctx, []*schema.Message{schema.SystemMessage(rewritePrompt), schema.UserMessage(convo)})
	if err != nil {
		return "", err
	}
	return out.Content, nil
}

func (r rewriter) chatModel(ctx context.Context, id string) (*llm.Model, error) {
	if id != "" {
		return modelOfKind(ctx, r.reg, id, llm.KindChat, "model_id")
	}
	ms, err := r.reg.ByKind(ctx, llm.KindChat)
	if err != nil {
		return nil, err
	}
	for i := range ms {
		if ms[i].Enabled {
			return &ms[i], nil
		}
	}
	return nil, errs.New(errs.ErrUnavailable, "no enabled chat model to rewrite the query with")
}

// docChunker parses documents in Go and cuts them: text by the strategy,
// tables into one piece per row.
type docChunker struct{ p docparse.Parser }

func (c docChunker) Chunk(ctx context.Context, src knowledgeapp.Source, s knowledge.ChunkStrategy, cols []knowledge.Column) ([]knowledge.Piece, error) {
	var parsed *knowledge.Parsed
	var err error
	if src.URL != "" && src.FileType == "html" {
		parsed, err = c.p.Readable(ctx, src.Body, src.URL)
	} else {
		parsed, err = c.p.Parse(ctx, src.FileType, src.Body)
	}
	if err != nil {
		return nil, err
	}
	if parsed.Table != nil {
		return knowledge.TableRows(parsed.Table, cols)
	}
	if s, err = s.Normalize(); err != nil {
		return nil, err
	}
	return knowledge.Split(parsed, s)
}

// knowledgeFiles reads and keeps files for knowledge documents.
type knowledgeFiles struct{ svc *fileapp.Service }

func (f knowledgeFiles) Of(ctx context.Context, ws, id int64) (*file.File, error) {
	return f.svc.Of(ctx, ws, id)
}

func (f knowledgeFiles) Content(ctx context.Context, ws, id int64) (*file.File, []byte, error) {
	return f.svc.Content(ctx, ws, id)
}

func (f knowledgeFiles) Save(ctx context.Context, ws, user int64, name string, data []byte) (*file.File, error) {
	return f.svc.Keep(ctx, ws, user, name, data)
}

// pageFetcher fetches web pages through the egress guard, at most max
// bytes.
type pageFetcher struct {
	client *http.Client
	max    int64
}

func (p pageFetcher) Fetch(ctx context.Context, url string) ([]byte, string, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	if err != nil {
		return nil, "", err
	}
	req.Header.Set("User-Agent", "Pergola knowledge (+https://github.com/pergola-ai/pergola)")
	res, err := p.client.Do(req)
	if err != nil {
		return nil, "", err
	}
	defer res.Body.Close()
	if res.StatusCode/100 != 2 {
		return nil, "", fmt.Errorf("the server answered %s", res.Status)
	}
	body, err := io.ReadAll(io.LimitReader(res.Body, p.max+1))
	if err != nil {
		return nil, "", err
	}
	if int64(len(body)) > p.max {
		return nil, "", fmt.Errorf("the page is larger than %d bytes", p.max)
	}
	return body, res.Header.Get("Content-Type"), nil
}
