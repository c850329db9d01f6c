package knowledge

import (
	"context"
	"net/http"
	"strconv"

	"github.com/cloudwego/hertz/pkg/app"

	knowledgeapp "github.com/pergola-ai/pergola/application/knowledge"
	"github.com/pergola-ai/pergola/backend/api/httpx"
	"github.com/pergola-ai/pergola/domain/errs"
	"github.com/pergola-ai/pergola/domain/knowledge"
)

// Console serves the builders' knowledge routes under /api/knowledge.
type Console struct {
	Svc *knowledgeapp.Service
}

// List answers GET /api/knowledge?workspace_id&name&format_type&page_num&page_size.
func (h Console) List(ctx context.Context, c *app.RequestContext) error {
	ws, err := httpx.QueryID(c, "workspace_id", true)
	if err != nil {
		return err
	}
	page, err := httpx.Paging(c, 20, 100)
	if err != nil {
		return err
	}
	in := knowledgeapp.ListInput{Filter: knowledge.ListFilter{Name: string(c.Query("name"))}, Page: page}
	if v := string(c.Query("format_type")); v != "" {
		n, err := strconv.Atoi(v)
		if err != nil {
			return errs.Invalid("format_type", "must be 0 (text), 1 (table) or 2 (image), got %q", v)
		}
		f := knowledge.Format(n)
		in.Filter.Format = &f
	}
	vs, total, err := h.Svc.List(ctx, httpx.Caller(c), ws, in)
	if err != nil {
		return err
	}
	out := make([]KnowledgeDTO, len(vs))
	for i := range vs {
		out[i] = newKnowledgeDTO(&vs[i])
	}
	httpx.OK(c, httpx.List[KnowledgeDTO]{Items: out, Total: total})
	return nil
}

// Create answers POST /api/knowledge with 201 and the new knowledge base.
func (h Console) Create(ctx context.Context, c *app.RequestContext) error {
	var req struct {
		WorkspaceID    httpx.ID     `json:"workspace_id"`
		Name           string       `json:"name"`
		Description    string       `json:"description"`
		IconFileID     httpx.ID     `json:"icon_file_id"`
		FormatType     int          `json:"format_type"`
		EmbeddingModel string       `json:"embedding_model"`
		ChunkStrategy  *StrategyDTO `json:"chunk_strategy"`
	}
	if err := bindStrict(c, &req); err != nil {
		return err
	}
	b, err := h.Svc.Create(ctx, httpx.Caller(c), knowledgeapp.CreateInput{WorkspaceID: int64(req.WorkspaceID), Name: req.Name,
		Description: req.Description, IconFileID: int64(req.IconFileID), Format: knowledge.Format(req.FormatType),
		EmbeddingModel: req.EmbeddingModel, ChunkStrategy: req.ChunkStrategy.strategy()})
	if err != nil {
		return err
	}
	c.JSON(http.StatusCreated, httpx.Envelope{Data: newKnowledgeDTO(&knowledgeapp.View{Base: *b})})
	return nil
}

// Get answers GET /api/knowledge/:id.
func (h Console) Get(ctx context.Context, c *app.RequestContext) error {
	id, err := httpx.PathID(c, "id")
	if err != nil {
		return err
	}
	v, err := h.Svc.Get(ctx, httpx.Caller(c), id)
	if err != nil {
		return err
	}
	httpx.OK(c, newKnowledgeDTO(v))
	return nil
}

// Update answers PATCH /api/knowledge/:id: the fields present change; a
// different embedding_model is refused (400).
func (h Console) Update(ctx context.Context, c *app.RequestContext) error {
	id, err := httpx.PathID(c, "id")
	if err != nil {
		return err
	}
	var req struct {
		Name           *string      `json:"name"`
		Description    *string      `json:"description"`
		IconFileID     *httpx.ID    `json:"icon_file_id"`
		EmbeddingModel *string      `json:"embedding_model"`
		ChunkStrategy  *StrategyDTO `json:"chunk_strategy"`
	}
	if err := bindStrict(c, &req); err != nil {
		return err
	}
	pt := knowledgeapp.Patch{Name: req.Name, Description: req.Description, EmbeddingModel: req.EmbeddingModel,
		ChunkStrategy: req.ChunkStrategy.strategy()}
	if req.IconFileID != nil {
		icon := int64(*req.IconFileID)
		pt.IconFileID = &icon
	}
	if _, err := h.Svc.Update(ctx, httpx.Caller(c), id, pt); err != nil {
		return err
	}
	return h.Get(ctx, c)
}

// Delete answers DELETE /api/knowledge/:id.
func (h Console) Delete(ctx context.Context, c *app.RequestContext) error {
	id, err := httpx.PathID(c, "id")
	if err != nil {
		return err
	}
	if err := h.Svc.Delete(ctx, httpx.Caller(c), id); err != nil {
		return err
	}
	httpx.OK(c, nil)
	return nil
}

// Search answers POST /api/knowledge/:id/search (hit testing): the chunks
// a bot would recall, with their scores, documents and positions.
func (h Console) Search(ctx context.Context, c *app.RequestContext) error {
	id, err := httpx.PathID(c, "id")
	if err != nil {
		return err
	}
	var req struct {
		Query          string  `json:"query"`
		SearchStrategy int     `json:"search_strategy"`
		TopK           *int    `json:"top_k"`
		MinScore       float64 `json:"min_score"`
		RerankModel    string  `json:"rerank_model"`
	}
	if err := bindStrict(c, &req); err != nil {
		return err
	}
	topK, err := searchTopK(req.TopK)
	if err != nil {
		return err
	}
	hits, err := h.Svc.Search(ctx, httpx.Caller(c), id, req.Query, knowledge.Retrieval{Strategy: knowledge.Strategy(req.SearchStrategy),
		TopK: topK, MinScore: req.MinScore, RerankModel: req.RerankModel})
	if err != nil {
		return err
	}
	out := make([]HitDTO, len(hits))
	for i := range hits {
		out[i] = HitDTO{Chunk: newChunkDTO(&hits[i].Chunk), Score: hits[i].Score, DocumentID: httpx.ID(hits[i].Chunk.DocumentID),
			DocumentName: hits[i].DocumentName, Position: hits[i].Chunk.Position}
	}
	httpx.OK(c, map[string]any{"hits": out})
	return nil
}

// searchTopK reads a search's top_k: absent is 0, the service's default;
// a 0 given is refused rather than read as the default.
func searchTopK(k *int) (int, error) {
	if k == nil {
		return 0, nil
	}
	if *k == 0 {
		return 0, errs.Invalid("top_k", "must be between 1 and %d, not 0; leave it out for %d", knowledgeapp.MaxTopK, knowledgeapp.DefaultTopK)
	}
	return *k, nil
}

// HitDTO is a chunk a search found.
type HitDTO struct {
	Chunk        ChunkDTO `json:"chunk"`
	Score        float64  `json:"score"`
	DocumentID   httpx.ID `json:"document_id"`
	DocumentName string   `json:"document_name"`
	Position     int      `json:"position"`
}
