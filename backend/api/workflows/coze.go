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
	wf "github.com/pergola-ai/pergola/workflow"
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
	// InterruptData is set when a question or input node stopped the run:
	// answer it with /v1/workflow/stream_resume.
	InterruptData *interruptDTO `json:"interrupt_data,omitempty"`
}

// interruptDTO is what an interrupted run asks: Coze's interrupt_data
// (event_id, type) with the question, its options or the form's fields.
type interruptDTO struct {
	EventID   string     `json:"event_id"`
	Type      int        `json:"type"`
	NodeTitle string     `json:"node_title,omitempty"`
	Question  string     `json:"question,omitempty"`
	Options   []string   `json:"options,omitempty"`
	Fields    []wf.Param `json:"fields,omitempty"`
}

func newInterrupt(eventID string, in *wf.Interrupt) *interruptDTO {
	title := in.Title
	if title == "" {
		title = in.NodeID
	}
	return &interruptDTO{EventID: eventID, Type: int(in.Kind), NodeTitle: title, Question: in.Question,
		Options: in.Options, Fields: in.Fields}
}

// Run answers POST /v1/workflow/run: the run's output as a JSON string in
// data. A run that fails answers with the error's status (400), its
// message naming the node, and execute_id, so its history can be read. A
// run a question stopped answers interrupt_data. With is_async the run is
// queued and only execute_id answers; its history shows its progress.
func (h Coze) Run(ctx context.Context, c *app.RequestContext) error {
	var req runRequest
	if err := httpx.BindJSON(c, &req); err != nil {
		return err
	}
	in, err := req.toApp(workflow.RunSync)
	if err != nil {
		return err
	}
	if in.Mode == workflow.RunAsync {
		run, err := h.Svc.RunAsync(ctx, httpx.Caller(c), in)
		if err != nil {
			setRetryAfter(c, err)
			return err
		}
		httpx.Raw(c, runAnswer{ExecuteID: httpx.OptionalID(run.ID), Cost: "0"})
		return nil
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
	u := newUsage(out.Run.InputTokens, out.Run.OutputTokens)
	ans := runAnswer{ExecuteID: httpx.OptionalID(out.Run.ID), Token: u.TokenCount, Cost: "0", Usage: &u}
	if out.Interrupt != nil {
		ans.InterruptData = newInterrupt(out.EventID, out.Interrupt)
	} else {
		ans.Data = runData(out.Result)
	}
	httpx.Raw(c, ans)
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

// runData is a finished run's data as Coze Studio answers it: the end
// node's variables as JSON text, or, when it returns text, that text
// wrapped as an answer ({"content_type":1,"data":text,"type_for_model":2}).
func runData(res *wf.RunResult) string {
	var v any = res.Output
	if res.ReturnsText {
		v = map[string]any{"content_type": 1, "data": res.Text, "type_for_model": 2}
	}
	data, _ := json.Marshal(v)
	return string(data)
}
