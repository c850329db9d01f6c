// Package traces serves GET /api/traces/{id}: the span tree of a chat
// turn (id: the chat id) or a workflow run (id: the execute id).
package traces

import (
	"context"
	"strconv"

	"github.com/cloudwego/hertz/pkg/app"

	apptrace "github.com/pergola-ai/pergola/application/trace"
	"github.com/pergola-ai/pergola/backend/api/httpx"
	"github.com/pergola-ai/pergola/domain/errs"
)

// Handlers serves the trace API.
type Handlers struct{ Svc *apptrace.Service }

// RunDTO is one stored run of the trace: a turn or a workflow run, or
// one of their resumptions.
type RunDTO struct {
	Kind      string         `json:"kind"`
	CreatedAt int64          `json:"created_at"`
	Root      *apptrace.Span `json:"root"`
}

// TraceDTO is the answer of GET /api/traces/{id}.
type TraceDTO struct {
	TraceID     string   `json:"trace_id"`
	WorkspaceID string   `json:"workspace_id"`
	Kind        string   `json:"kind"`
	Runs        []RunDTO `json:"runs"`
}

// Get answers GET /api/traces/{id}.
func (h Handlers) Get(ctx context.Context, c *app.RequestContext) error {
	if h.Svc == nil {
		return errs.New(errs.ErrUnavailable, "traces are not available in this process")
	}
	id, err := httpx.PathID(c, "id")
	if err != nil {
		return err
	}
	v, err := h.Svc.Get(ctx, httpx.Caller(c), id)
	if err != nil {
		return err
	}
	out := TraceDTO{TraceID: strconv.FormatInt(v.ID, 10), WorkspaceID: strconv.FormatInt(v.WorkspaceID, 10), Kind: v.Kind,
		Runs: make([]RunDTO, len(v.Runs))}
	for i, r := range v.Runs {
		out.Runs[i] = RunDTO{Kind: r.Kind, CreatedAt: r.CreatedAt.Unix(), Root: r.Root}
	}
	httpx.OK(c, out)
	return nil
}
