package plugins

import (
	"context"
	"time"

	"github.com/cloudwego/hertz/pkg/app"

	pluginapp "github.com/pergola-ai/pergola/application/plugin"
	"github.com/pergola-ai/pergola/backend/api/httpx"
	"github.com/pergola-ai/pergola/domain/errs"
)

// Admin serves the administrators' plugin routes under /api/admin/plugins.
type Admin struct {
	Svc *pluginapp.Service
}

// ToolStatsDTO is the call statistics of one tool.
type ToolStatsDTO struct {
	Tool          string  `json:"tool"`
	Calls         int64   `json:"calls"`
	Errors        int64   `json:"errors"`
	MeanLatencyMs float64 `json:"mean_latency_ms"`
	MaxLatencyMs  float64 `json:"max_latency_ms"`
	LastCalledAt  int64   `json:"last_called_at"`
	LastError     string  `json:"last_error"`
	LastErrorAt   int64   `json:"last_error_at"`
}

// AdminPluginDTO is a plugin with its tools' statistics.
type AdminPluginDTO struct {
	PluginDTO
	Stats []ToolStatsDTO `json:"stats"`
}

func msOf(d time.Duration) float64 { return float64(d.Microseconds()) / 1000 }

func newAdminPluginDTO(a *pluginapp.AdminPlugin) AdminPluginDTO {
	d := AdminPluginDTO{PluginDTO: newPluginDTO(&a.Plugin, false), Stats: make([]ToolStatsDTO, len(a.Stats))}
	for i, st := range a.Stats {
		d.Stats[i] = ToolStatsDTO{Tool: st.Tool, Calls: st.Calls, Errors: st.Errors, MeanLatencyMs: msOf(st.MeanLatency()),
			MaxLatencyMs: msOf(st.MaxLatency), LastCalledAt: httpx.Unix(st.LastCalledAt), LastError: st.LastError,
			LastErrorAt: httpx.UnixPtr(st.LastErrorAt)}
	}
	return d
}

// List answers GET /api/admin/plugins?workspace_id&page_num&page_size:
// every plugin across workspaces, newest first, with call statistics.
func (h Admin) List(ctx context.Context, c *app.RequestContext) error {
	ws, err := httpx.QueryID(c, "workspace_id", false)
	if err != nil {
		return err
	}
	page, err := httpx.Paging(c, 50, 200)
	if err != nil {
		return err
	}
	list, total, err := h.Svc.AdminList(ctx, httpx.Caller(c), ws, page)
	if err != nil {
		return err
	}
	out := make([]AdminPluginDTO, len(list))
	for i := range list {
		out[i] = newAdminPluginDTO(&list[i])
	}
	httpx.OK(c, httpx.List[AdminPluginDTO]{Items: out, Total: total})
	return nil
}

// Get answers GET /api/admin/plugins/:id.
func (h Admin) Get(ctx context.Context, c *app.RequestContext) error {
	id, err := httpx.PathID(c, "id")
	if err != nil {
		return err
	}
	a, err := h.Svc.AdminGet(ctx, httpx.Caller(c), id)
	if err != nil {
		return err
	}
	httpx.OK(c, newAdminPluginDTO(a))
	return nil
}

type switchRequest struct {
	Enabled *bool `json:"enabled"`
}

func (r switchRequest) value() (bool, error) {
	if r.Enabled == nil {
		return false, errs.Invalid("enabled", "is required: true or false")
	}
	return *r.Enabled, nil
}

// SetEnabled answers PATCH /api/admin/plugins/:id {enabled}.
func (h Admin) SetEnabled(ctx context.Context, c *app.RequestContext) error {
	id, err := httpx.PathID(c, "id")
	if err != nil {
		return err
	}
	var req switchRequest
	if err := bindStrict(c, &req, true); err != nil {
		return err
	}
	on, err := req.value()
	if err != nil {
		return err
	}
	a, err := h.Svc.SetEnabled(ctx, httpx.Caller(c), id, on)
	if err != nil {
		return err
	}
	httpx.OK(c, newAdminPluginDTO(a))
	return nil
}

// SetToolEnabled answers PATCH /api/admin/plugins/:id/tools/:tool
// {enabled}.
func (h Admin) SetToolEnabled(ctx context.Context, c *app.RequestContext) error {
	id, err := httpx.PathID(c, "id")
	if err != nil {
		return err
	}
	var req switchRequest
	if err := bindStrict(c, &req, true); err != nil {
		return err
	}
	on, err := req.value()
	if err != nil {
		return err
	}
	a, err := h.Svc.SetToolEnabled(ctx, httpx.Caller(c), id, c.Param("tool"), on)
	if err != nil {
		return err
	}
	httpx.OK(c, newAdminPluginDTO(a))
	return nil
}
