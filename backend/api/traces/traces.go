// Package traces serves GET /api/traces/{id}: the span tree of a chat
// turn (id: the chat id, or the id OpenAI's surfaces gave it) or a
// workflow run (id: the execute id).
package traces

import (
	"context"
	"strconv"
	"strings"

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
	id, err := traceID(c.Param("id"))
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

// traceID reads the id of a trace: a chat id or an execute id, or the id
// a chat has on OpenAI's surfaces: chatcmpl-<chat id> from
// /v1/chat/completions, resp_<conversation id>_<chat id>[_<suffix>] from
// /v1/responses (a continuation's suffix names a run of the same chat).
func traceID(s string) (int64, error) {
	digits := s
	if rest, ok := strings.CutPrefix(s, "chatcmpl-"); ok {
		digits = rest
	} else if rest, ok := strings.CutPrefix(s, "resp_"); ok {
		if parts := strings.Split(rest, "_"); len(parts) >= 2 {
			digits = parts[1]
		}
	}
	if id, err := strconv.ParseInt(digits, 10, 64); err == nil && id > 0 {
		return id, nil
	}
	return 0, errs.Invalid("id", "must be a chat id, a workflow execute_id, a completion's chatcmpl-<id> or a response's resp_<id>; got %q", s)
}
