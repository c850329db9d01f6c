package workflows

import (
	"context"
	"net/http"

	"github.com/cloudwego/hertz/pkg/app"

	workflowapp "github.com/pergola-ai/pergola/application/workflow"
	"github.com/pergola-ai/pergola/backend/api/httpx"
)

// Publish answers POST /api/workflows/:id/publish {description?} with 201
// and the new version.
func (h Console) Publish(ctx context.Context, c *app.RequestContext) error {
	id, err := httpx.PathID(c, "id")
	if err != nil {
		return err
	}
	var req struct {
		Description string `json:"description"`
	}
	if err := httpx.BindJSON(c, &req); err != nil {
		return err
	}
	v, err := h.Svc.Publish(ctx, httpx.Caller(c), id, req.Description)
	if err != nil {
		return err
	}
	v.Definition = nil
	c.JSON(http.StatusCreated, httpx.Envelope{Data: newVersionDTO(v)})
	return nil
}

// Versions answers GET /api/workflows/:id/versions, newest first.
func (h Console) Versions(ctx context.Context, c *app.RequestContext) error {
	id, err := httpx.PathID(c, "id")
	if err != nil {
		return err
	}
	vs, err := h.Svc.ListVersions(ctx, httpx.Caller(c), id)
	if err != nil {
		return err
	}
	out := make([]VersionDTO, len(vs))
	for i := range vs {
		out[i] = newVersionDTO(&vs[i])
	}
	httpx.OK(c, httpx.List[VersionDTO]{Items: out, Total: int64(len(out))})
	return nil
}

// Version answers GET /api/workflows/:id/versions/:version with its
// definition.
func (h Console) Version(ctx context.Context, c *app.RequestContext) error {
	id, err := httpx.PathID(c, "id")
	if err != nil {
		return err
	}
	number, err := httpx.PathID(c, "version")
	if err != nil {
		return err
	}
	v, err := h.Svc.GetVersion(ctx, httpx.Caller(c), id, number)
	if err != nil {
		return err
	}
	httpx.OK(c, newVersionDTO(v))
	return nil
}

// TestRunDTO is the result of a test run: the outcome and every node's
// record.
type TestRunDTO struct {
	ExecuteID  httpx.ID       `json:"execute_id"`
	Status     string         `json:"status"`
	Output     map[string]any `json:"output"`
	Text       string         `json:"text,omitempty"`
	Error      *RunErrorDTO   `json:"error"`
	Usage      UsageDTO       `json:"usage"`
	DurationMS float64        `json:"duration_ms"`
	Nodes      []NodeDTO      `json:"nodes"`
}

// RunErrorDTO says why a run failed and where.
type RunErrorDTO struct {
	NodeID    string `json:"node_id,omitempty"`
	NodeType  string `json:"node_type,omitempty"`
	NodeTitle string `json:"node_title,omitempty"`
	Message   string `json:"message"`
}

// TestRun answers POST /api/workflows/:id/test_run {parameters, bot_id?,
// user_id?}: the draft runs and the answer holds its outcome, succeeded
// or failed, with every node's record.
func (h Console) TestRun(ctx context.Context, c *app.RequestContext) error {
	id, err := httpx.PathID(c, "id")
	if err != nil {
		return err
	}
	var req struct {
		Parameters map[string]any `json:"parameters"`
		BotID      httpx.ID       `json:"bot_id"`
		AppID      httpx.ID       `json:"app_id"`
		UserID     string         `json:"user_id"`
	}
	if err := httpx.BindJSON(c, &req); err != nil {
		return err
	}
	out, err := h.Svc.TestRun(ctx, httpx.Caller(c), workflowapp.RunRequest{WorkflowID: id, Params: req.Parameters,
		BotID: int64(req.BotID), AppID: int64(req.AppID), UserID: req.UserID})
	if err != nil {
		return err
	}
	httpx.OK(c, newTestRunDTO(out))
	return nil
}

func newTestRunDTO(out *workflowapp.Outcome) TestRunDTO {
	res := out.Result
	d := TestRunDTO{ExecuteID: httpx.ID(out.Run.ID), Status: string(out.Run.Status), Output: res.Output, Text: res.Text,
		Usage: newUsage(res.Usage.InputTokens, res.Usage.OutputTokens), DurationMS: float64(res.Duration.Microseconds()) / 1000,
		Nodes: make([]NodeDTO, len(res.Nodes))}
	for i := range res.Nodes {
		d.Nodes[i] = newNodeDTOFromRecord(&res.Nodes[i])
	}
	if f := out.Failure; f != nil {
		d.Error = &RunErrorDTO{NodeID: f.NodeID, NodeType: f.Type, NodeTitle: f.Title, Message: f.Message}
	}
	return d
}

// Nodes answers GET /api/workflow-nodes: every node type with its config
// schema, the engine's limits, and the JSON Schema of a definition.
func (h Console) Nodes(ctx context.Context, c *app.RequestContext) error {
	lim := h.Svc.Limits()
	httpx.OK(c, map[string]any{
		"types": h.Svc.NodeTypes(),
		"limits": map[string]any{"max_nodes": lim.MaxNodes, "max_depth": lim.MaxDepth, "max_iterations": lim.MaxIterations,
			"max_parallel": lim.MaxParallel, "run_timeout_ms": lim.RunTimeout.Milliseconds(),
			"node_timeout_ms": lim.NodeTimeout.Milliseconds(), "code_timeout_ms": lim.CodeTimeout.Milliseconds(),
			"code_memory_bytes": lim.CodeMemory},
		"dsl_schema": h.Svc.DSLSchema(),
	})
	return nil
}
