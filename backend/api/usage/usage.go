// Package usage serves GET /api/usage: chats, workflow runs, errors,
// tokens and latency of a workspace, grouped by day, bot, model and
// workspace.
package usage

import (
	"context"
	"strconv"
	"time"

	"github.com/cloudwego/hertz/pkg/app"

	appusage "github.com/pergola-ai/pergola/application/usage"
	"github.com/pergola-ai/pergola/backend/api/httpx"
	"github.com/pergola-ai/pergola/domain/errs"
)

// Handlers serves the usage API.
type Handlers struct{ Svc *appusage.Service }

// ItemDTO is the usage of one group; only the grouped keys appear.
type ItemDTO struct {
	Day          string  `json:"day,omitempty"`
	BotID        *string `json:"bot_id,omitempty"`
	Model        *string `json:"model,omitempty"`
	WorkspaceID  *string `json:"workspace_id,omitempty"`
	Chats        int64   `json:"chats"`
	Runs         int64   `json:"runs"`
	Errors       int64   `json:"errors"`
	InputTokens  int64   `json:"input_tokens"`
	OutputTokens int64   `json:"output_tokens"`
	LatencyP50MS int64   `json:"latency_p50_ms"`
	LatencyP95MS int64   `json:"latency_p95_ms"`
}

// ReportDTO is the answer of GET /api/usage.
type ReportDTO struct {
	Items     []ItemDTO `json:"items"`
	From      int64     `json:"from"`
	To        int64     `json:"to"`
	Truncated bool      `json:"truncated"`
}

// Get answers GET /api/usage?workspace_id&bot_id&from&to&group_by.
func (h Handlers) Get(ctx context.Context, c *app.RequestContext) error {
	if h.Svc == nil {
		return errs.New(errs.ErrUnavailable, "usage is not available in this process")
	}
	req, err := request(c)
	if err != nil {
		return err
	}
	rep, err := h.Svc.Usage(ctx, httpx.Caller(c), req)
	if err != nil {
		return err
	}
	out := ReportDTO{Items: make([]ItemDTO, len(rep.Rows)), From: rep.From.Unix(), To: rep.To.Unix(), Truncated: rep.Truncated}
	for i, r := range rep.Rows {
		out.Items[i] = item(r, req.GroupBy)
	}
	httpx.OK(c, out)
	return nil
}

func request(c *app.RequestContext) (appusage.Request, error) {
	var r appusage.Request
	var err error
	if r.WorkspaceID, err = httpx.QueryID(c, "workspace_id", false); err != nil {
		return r, err
	}
	if r.BotID, err = httpx.QueryID(c, "bot_id", false); err != nil {
		return r, err
	}
	if r.From, err = unixQuery(c, "from"); err != nil {
		return r, err
	}
	if r.To, err = unixQuery(c, "to"); err != nil {
		return r, err
	}
	r.GroupBy, err = appusage.ParseGroupBy(string(c.Query("group_by")))
	return r, err
}

// unixQuery reads Unix seconds; zero when absent.
func unixQuery(c *app.RequestContext, name string) (time.Time, error) {
	v := string(c.Query(name))
	if v == "" {
		return time.Time{}, nil
	}
	n, err := strconv.ParseInt(v, 10, 64)
	if err != nil || n <= 0 {
		return time.Time{}, errs.Invalid(name, "must be a time in Unix seconds, got %q", v)
	}
	return time.Unix(n, 0).UTC(), nil
}

func item(r appusage.Row, by []appusage.Key) ItemDTO {
	d := ItemDTO{Chats: r.Chats, Runs: r.Runs, Errors: r.Errors, InputTokens: r.InputTokens,
		OutputTokens: r.OutputTokens, LatencyP50MS: r.LatencyP50MS, LatencyP95MS: r.LatencyP95MS}
	for _, k := range by {
		switch k {
		case appusage.ByDay:
			d.Day = r.Day
		case appusage.ByBot:
			d.BotID = ptr(strconv.FormatInt(r.BotID, 10))
		case appusage.ByModel:
			d.Model = ptr(r.Model)
		case appusage.ByWorkspace:
			d.WorkspaceID = ptr(strconv.FormatInt(r.WorkspaceID, 10))
		}
	}
	return d
}

func ptr(s string) *string { return &s }
