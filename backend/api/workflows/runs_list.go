package workflows

import (
	"context"
	"strconv"
	"time"

	"github.com/cloudwego/hertz/pkg/app"

	appworkflow "github.com/pergola-ai/pergola/application/workflow"
	"github.com/pergola-ai/pergola/backend/api/httpx"
	"github.com/pergola-ai/pergola/domain/errs"
	"github.com/pergola-ai/pergola/domain/workflow"
)

// RunDTO is one run in the console's list of a workflow's runs: what it
// was asked with and how it ended, without its node records (read those
// with the run history).
type RunDTO struct {
	ExecuteID   string   `json:"execute_id"`
	WorkflowID  string   `json:"workflow_id"`
	Version     int64    `json:"version"`
	Mode        string   `json:"mode"`
	Status      string   `json:"status"`
	BotID       string   `json:"bot_id"`
	UserID      string   `json:"user_id"`
	ConnectorID string   `json:"connector_id"`
	Input       any      `json:"input"`
	Output      any      `json:"output"`
	Error       string   `json:"error"`
	Usage       UsageDTO `json:"usage"`
	CreatedAt   int64    `json:"created_at"`
	FinishedAt  int64    `json:"finished_at"`
}

func newRunDTO(r *workflow.Run) RunDTO {
	return RunDTO{ExecuteID: strconv.FormatInt(r.ID, 10), WorkflowID: strconv.FormatInt(r.WorkflowID, 10),
		Version: r.Version, Mode: string(r.Mode), Status: string(r.Status), BotID: strconv.FormatInt(r.BotID, 10),
		UserID: r.UserID, ConnectorID: r.ConnectorID, Input: rawJSON([]byte(r.Input)), Output: rawJSON([]byte(r.Output)),
		Error: r.Error, Usage: newUsage(r.InputTokens, r.OutputTokens), CreatedAt: httpx.Unix(r.CreatedAt),
		FinishedAt: httpx.UnixPtr(r.FinishedAt)}
}

// Runs answers GET /api/workflows/:id/runs?status&mode&user_id&from&to
// &page_num&page_size: the workflow's runs, newest first.
func (h Console) Runs(ctx context.Context, c *app.RequestContext) error {
	id, err := httpx.PathID(c, "id")
	if err != nil {
		return err
	}
	f, err := runFilter(c)
	if err != nil {
		return err
	}
	page, err := httpx.Paging(c, 20, 100)
	if err != nil {
		return err
	}
	runs, total, err := h.Svc.ListRuns(ctx, httpx.Caller(c), id, f, page)
	if err != nil {
		return err
	}
	out := make([]RunDTO, len(runs))
	for i := range runs {
		out[i] = newRunDTO(&runs[i])
	}
	httpx.OK(c, httpx.List[RunDTO]{Items: out, Total: total})
	return nil
}

// The values the status and mode filters accept.
var (
	runStatuses = []workflow.RunStatus{workflow.RunRunning, workflow.RunSucceeded, workflow.RunFailed,
		workflow.RunInterrupted, workflow.RunCancelled}
	runModes = []workflow.RunMode{workflow.RunSync, workflow.RunStream, workflow.RunAsync, workflow.RunTest}
)

// runFilter reads the filters of the runs list from the query.
func runFilter(c *app.RequestContext) (appworkflow.RunFilter, error) {
	f := appworkflow.RunFilter{Status: workflow.RunStatus(c.Query("status")), Mode: workflow.RunMode(c.Query("mode")),
		UserID: string(c.Query("user_id"))}
	if f.Status != "" && !oneOf(f.Status, runStatuses) {
		return f, errs.Invalid("status", "must be one of running, success, fail, interrupted, cancelled; got %q", f.Status)
	}
	if f.Mode != "" && !oneOf(f.Mode, runModes) {
		return f, errs.Invalid("mode", "must be one of sync, stream, async, test; got %q", f.Mode)
	}
	var err error
	if f.From, err = unixQuery(c, "from"); err != nil {
		return f, err
	}
	if f.To, err = unixQuery(c, "to"); err != nil {
		return f, err
	}
	if !f.From.IsZero() && !f.To.IsZero() && !f.From.Before(f.To) {
		return f, errs.Invalid("to", "must be after from (%d), got %d", f.From.Unix(), f.To.Unix())
	}
	return f, nil
}

func oneOf[T comparable](v T, set []T) bool {
	for _, s := range set {
		if s == v {
			return true
		}
	}
	return false
}

// unixQuery reads the query parameter name as Unix seconds; zero when
// absent.
func unixQuery(c *app.RequestContext, name string) (time.Time, error) {
	v := string(c.Query(name))
	if v == "" {
		return time.Time{}, nil
	}
	n, err := strconv.ParseInt(v, 10, 64)
	if err != nil || n < 0 {
		return time.Time{}, errs.Invalid(name, "must be a time in Unix seconds, got %q", v)
	}
	return time.Unix(n, 0).UTC(), nil
}
