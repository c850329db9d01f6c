package api

import (
	"context"

	"github.com/cloudwego/hertz/pkg/app"
	"github.com/cloudwego/hertz/pkg/route"

	"github.com/pergola-ai/pergola/backend/api/httpx"
	"github.com/pergola-ai/pergola/backend/api/knowledge"
	"github.com/pergola-ai/pergola/domain/errs"
)

// registerKnowledge installs the builders' knowledge routes on console
// (/api): knowledge bases, documents, chunks, progress and the retrieval
// test. Without the knowledge service (Deps.Knowledge nil) they answer
// 503.
func registerKnowledge(console *route.RouterGroup, d Deps) {
	k := knowledge.Console{Svc: d.Knowledge}
	handle := func(h httpx.Handler) app.HandlerFunc {
		if d.Knowledge == nil {
			return httpx.Handle(func(context.Context, *app.RequestContext) error {
				return errs.New(errs.ErrUnavailable, "knowledge bases are not available in this process")
			})
		}
		return httpx.Handle(h)
	}
	console.GET("/knowledge", handle(k.List))
	console.POST("/knowledge", handle(k.Create))
	console.GET("/knowledge/:id", handle(k.Get))
	console.PATCH("/knowledge/:id", handle(k.Update))
	console.DELETE("/knowledge/:id", handle(k.Delete))
	console.POST("/knowledge/:id/documents", handle(k.AddDocuments))
	console.GET("/knowledge/:id/documents", handle(k.Documents))
	console.PATCH("/knowledge/:id/documents/:document_id", handle(k.UpdateDocument))
	console.DELETE("/knowledge/:id/documents/:document_id", handle(k.DeleteDocument))
	console.POST("/knowledge/:id/documents/:document_id/refresh", handle(k.Refresh))
	console.GET("/knowledge/:id/documents/:document_id/chunks", handle(k.Chunks))
	console.POST("/knowledge/:id/documents/:document_id/chunks", handle(k.AddChunk))
	console.PATCH("/knowledge/:id/chunks/:chunk_id", handle(k.EditChunk))
	console.DELETE("/knowledge/:id/chunks/:chunk_id", handle(k.DeleteChunk))
	console.GET("/knowledge/:id/progress", handle(k.Progress))
	console.POST("/knowledge/:id/search", handle(k.Search))
}
