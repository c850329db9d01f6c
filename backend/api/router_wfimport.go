package api

import (
	"github.com/cloudwego/hertz/pkg/route"

	"github.com/pergola-ai/pergola/backend/api/httpx"
	"github.com/pergola-ai/pergola/backend/api/wfimport"
)

// registerWorkflowImport installs the import of Coze Studio workflows on
// the console.
func registerWorkflowImport(_, console, _ *route.RouterGroup, d Deps) {
	h := wfimport.Handler{Svc: d.Workflows, Apps: d.Apps}
	console.POST("/workflows/import", httpx.Handle(h.Import))
}
