package api

import (
	"github.com/cloudwego/hertz/pkg/route"

	"github.com/pergola-ai/pergola/backend/api/files"
	"github.com/pergola-ai/pergola/backend/api/httpx"
)

// uploadPath is the one route whose body may pass PERGOLA_MAX_BODY_BYTES,
// up to Deps.UploadBytes.
const uploadPath = "/v1/files/upload"

// registerFiles installs Coze's file routes; without a file service they
// answer 503.
func registerFiles(coze *route.RouterGroup, d Deps) {
	h := files.Handlers{Svc: d.Files}
	coze.POST(uploadPath, httpx.Handle(h.Upload))
	coze.GET("/v1/files/retrieve", httpx.Handle(h.Retrieve))
}
