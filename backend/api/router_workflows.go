package api

import (
	"github.com/cloudwego/hertz/pkg/route"

	"github.com/pergola-ai/pergola/backend/api/httpx"
	"github.com/pergola-ai/pergola/backend/api/workflows"
)

// registerWorkflows installs the workflow routes: Coze's runs, streams, run
// histories and list on coze, the builders' resource routes on console.
// Administrators have no workflow routes of their own.
func registerWorkflows(coze, console, _ *route.RouterGroup, d Deps) {
	cz := workflows.Coze{Svc: d.Workflows}
	coze.POST("/v1/workflow/run", httpx.Handle(cz.Run))
	coze.POST("/v1/workflow/stream_run", httpx.Handle(cz.StreamRun))
	coze.POST("/v1/workflow/stream_resume", httpx.Handle(cz.StreamResume))
	coze.GET("/v1/workflows/:workflow_id/run_histories/:execute_id", httpx.Handle(cz.RunHistory))
	coze.GET("/v1/workflows", httpx.Handle(cz.List))

	cs := workflows.Console{Svc: d.Workflows}
	console.GET("/workflow-nodes", httpx.Handle(cs.Nodes))
	console.GET("/workflows", httpx.Handle(cs.List))
	console.POST("/workflows", httpx.Handle(cs.Create))
	console.POST("/workflows/validate", httpx.Handle(cs.Validate))
	console.GET("/workflows/:id", httpx.Handle(cs.Get))
	console.PATCH("/workflows/:id", httpx.Handle(cs.Update))
	console.DELETE("/workflows/:id", httpx.Handle(cs.Delete))
	console.POST("/workflows/:id/test_run", httpx.Handle(cs.TestRun))
	console.GET("/workflows/:id/runs", httpx.Handle(cs.Runs))
	console.POST("/workflows/:id/runs/:execute_id/cancel", httpx.Handle(cs.CancelRun))
	console.POST("/workflows/:id/publish", httpx.Handle(cs.Publish))
	console.GET("/workflows/:id/versions", httpx.Handle(cs.Versions))
	console.GET("/workflows/:id/versions/:version", httpx.Handle(cs.Version))
}
