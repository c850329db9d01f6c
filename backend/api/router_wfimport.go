package api

import "github.com/cloudwego/hertz/pkg/route"

// registerWorkflowImport installs the import of Coze Studio workflows.
func registerWorkflowImport(coze, console, admin *route.RouterGroup, d Deps) {}
