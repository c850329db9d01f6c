package workflows

import (
	"context"
	"encoding/json"
	"errors"

	"github.com/cloudwego/hertz/pkg/app"

	workflowapp "github.com/pergola-ai/pergola/application/workflow"
	"github.com/pergola-ai/pergola/backend/api/httpx"
	"github.com/pergola-ai/pergola/domain/errs"
	"github.com/pergola-ai/pergola/domain/workflow"
)

// Coze serves the Coze-compatible workflow routes, in the wire shapes
// Coze's SDKs decode.
type Coze struct {
	Svc *workflowapp.Service
}

// runAnswer is the body of /v1/workflow/run: fields beside "code", and
// data a JSON string.
type runAnswer struct {
	Code      int           `json:"code"`
	Msg       string        `json:"msg"`
	ExecuteID string        `json:"execute_id"`
	Data      string        `json:"data,omitempty"`
	DebugURL  string        `json:"debug_url"`
	Token     int64         `json:"token"`
	Cost      string        `json:"cost"`
	Usage     *UsageDTO     `json:"usage,omitempty"`
	Detail    *httpx.Detail `json:"detail,omitempty"`
}

// Run answers POST /v1/workflow/run: the run's output as a JSON string in
// data. A run that fails answers with the error's status (400), its
// message naming the node, and execute_id, so its history can be read.
func (h Coze) Run(ctx context.Context, c *app.RequestContext) error {
	var req runRequest
	if err := httpx.BindJSON(c, &req); err != nil {
		return err
	}
	in, err := req.toApp(workflow.RunSync)
	if err != nil {
		return err
	}
	out, err := h.Svc.Run(ctx, httpx.Caller(c), in)
	var failed *workflowapp.RunFailed
	if errors.As(err, &failed) {
		status, code, msg := httpx.Classify(err)
		c.JSON(status, runAnswer{Code: code, Msg: msg, ExecuteID: httpx.OptionalID(failed.RunID), Cost: "0",
			Detail: &httpx.Detail{LogID: httpx.LogID(c)}})
		return nil
	}
	if err != nil {
		return err
	}
	data, _ := json.Marshal(out.Result.Output)
	u := newUsage(out.Run.InputTokens, out.Run.OutputTokens)
	httpx.Raw(c, runAnswer{ExecuteID: httpx.OptionalID(out.Run.ID), Data: string(data), Token: u.TokenCount, Cost: "0", Usage: &u})
	return nil
}

// List answers GET /v1/workflows?workspace_id&page_num&page_size
// &publish_status with {items, has_more}.
func (h Coze) List(ctx context.Context, c *app.RequestContext) error {
	ws, err := httpx.QueryID(c, "workspace_id", true)
	if err != nil {
		return err
	}
	page, err := httpx.Paging(c, 20, 100)
	if err != nil {
		return err
	}
	var f workflow.ListFilter
	switch s := string(c.Query("publish_status")); s {
	case "", "all":
	case "published_online":
		f.PublishedOnly = true
	default:
		return errs.Invalid("publish_status", "must be all or published_online; got %q", s)
	}
	if mode := string(c.Query("workflow_mode")); mode != "" && mode != "workflow" {
		return errs.Invalid("workflow_mode", "only workflow is available; got %q", mode)
	}
	items, total, err := h.Svc.List(ctx, httpx.Caller(c), ws, f, page)
	if err != nil {
		return err
	}
	out := make([]map[string]any, len(items))
	for i, w := range items {
		out[i] = map[string]any{"workflow_id": httpx.ID(w.ID), "workflow_name": w.Name, "description": w.Description,
			"icon_url": "", "app_id": "", "created_at": httpx.Unix(w.CreatedAt), "updated_at": httpx.Unix(w.UpdatedAt),
			"published_version": w.PublishedVersion}
	}
	httpx.OK(c, map[string]any{"items": out, "has_more": int64(page.Offset()+len(items)) < total})
	return nil
}
