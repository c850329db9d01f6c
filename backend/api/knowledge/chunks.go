package knowledge

import (
	"context"
	"net/http"

	"github.com/cloudwego/hertz/pkg/app"

	"github.com/pergola-ai/pergola/backend/api/httpx"
)

// Chunks answers GET /api/knowledge/:id/documents/:document_id/chunks
// ?page_num&page_size: the chunks in position order.
func (h Console) Chunks(ctx context.Context, c *app.RequestContext) error {
	id, doc, err := pathIDs(c, "document_id")
	if err != nil {
		return err
	}
	page, err := httpx.Paging(c, 20, 100)
	if err != nil {
		return err
	}
	cs, total, err := h.Svc.Chunks(ctx, httpx.Caller(c), id, doc, page)
	if err != nil {
		return err
	}
	out := make([]ChunkDTO, len(cs))
	for i := range cs {
		out[i] = newChunkDTO(&cs[i])
	}
	httpx.OK(c, httpx.List[ChunkDTO]{Items: out, Total: total})
	return nil
}

// AddChunk answers POST /api/knowledge/:id/documents/:document_id/chunks
// {text} with 201: a chunk appended by hand, embedded at once.
func (h Console) AddChunk(ctx context.Context, c *app.RequestContext) error {
	id, doc, err := pathIDs(c, "document_id")
	if err != nil {
		return err
	}
	var req struct {
		Text string `json:"text"`
	}
	if err := bindStrict(c, &req); err != nil {
		return err
	}
	ch, err := h.Svc.AddChunk(ctx, httpx.Caller(c), id, doc, req.Text)
	if err != nil {
		return err
	}
	c.JSON(http.StatusCreated, httpx.Envelope{Data: newChunkDTO(ch)})
	return nil
}

// EditChunk answers PATCH /api/knowledge/:id/chunks/:chunk_id {text}: the
// chunk's text is replaced and embedded again.
func (h Console) EditChunk(ctx context.Context, c *app.RequestContext) error {
	id, chunk, err := pathIDs(c, "chunk_id")
	if err != nil {
		return err
	}
	var req struct {
		Text string `json:"text"`
	}
	if err := bindStrict(c, &req); err != nil {
		return err
	}
	ch, err := h.Svc.EditChunk(ctx, httpx.Caller(c), id, chunk, req.Text)
	if err != nil {
		return err
	}
	httpx.OK(c, newChunkDTO(ch))
	return nil
}

// DeleteChunk answers DELETE /api/knowledge/:id/chunks/:chunk_id.
func (h Console) DeleteChunk(ctx context.Context, c *app.RequestContext) error {
	id, chunk, err := pathIDs(c, "chunk_id")
	if err != nil {
		return err
	}
	if err := h.Svc.DeleteChunk(ctx, httpx.Caller(c), id, chunk); err != nil {
		return err
	}
	httpx.OK(c, nil)
	return nil
}
