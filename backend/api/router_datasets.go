package api

import (
	"context"

	"github.com/cloudwego/hertz/pkg/app"
	"github.com/cloudwego/hertz/pkg/route"

	"github.com/pergola-ai/pergola/backend/api/datasets"
	"github.com/pergola-ai/pergola/backend/api/httpx"
	"github.com/pergola-ai/pergola/domain/errs"
)

// documentCreatePath is the route whose body may pass
// PERGOLA_MAX_BODY_BYTES, up to Deps.DocumentBytes: documents arrive in
// it as base64.
const documentCreatePath = "/open_api/knowledge/document/create"

// registerDatasets installs Coze's knowledge routes (@coze/api datasets,
// datasets.documents, datasets.images). Without the knowledge service
// (Deps.Knowledge nil) they answer 503.
func registerDatasets(coze *route.RouterGroup, d Deps) {
	h := datasets.Handlers{Svc: d.Knowledge}
	handle := func(f httpx.Handler) app.HandlerFunc {
		if d.Knowledge == nil {
			return httpx.Handle(func(context.Context, *app.RequestContext) error {
				return errs.New(errs.ErrUnavailable, "knowledge bases are not available in this process")
			})
		}
		return httpx.Handle(f)
	}
	coze.POST("/v1/datasets", handle(h.Create))
	coze.GET("/v1/datasets", handle(h.List))
	coze.PUT("/v1/datasets/:dataset_id", handle(h.Update))
	coze.DELETE("/v1/datasets/:dataset_id", handle(h.Delete))
	coze.POST("/v1/datasets/:dataset_id/process", handle(h.Process))
	coze.GET("/v1/datasets/:dataset_id/images", handle(h.ListImages))
	coze.PUT("/v1/datasets/:dataset_id/images/:document_id", handle(h.UpdateImage))
	coze.POST(documentCreatePath, handle(h.CreateDocuments))
	coze.POST("/open_api/knowledge/document/list", handle(h.ListDocuments))
	coze.GET("/open_api/knowledge/document/list", handle(h.ListDocuments)) // the SDK's deprecated knowledge.documents.list
	coze.POST("/open_api/knowledge/document/update", handle(h.UpdateDocument))
	coze.POST("/open_api/knowledge/document/delete", handle(h.DeleteDocuments))
}
