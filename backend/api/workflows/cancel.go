package workflows

import (
	"context"
	"strconv"

	"github.com/cloudwego/hertz/pkg/app"

	"github.com/pergola-ai/pergola/backend/api/httpx"
)

// CancelRun answers POST /api/workflows/:id/runs/:execute_id/cancel: an
// interrupted or queued run is cancelled at once, a running one at its
// next node on whichever process runs it. It answers {execute_id,
// execute_status} as stored when the request was taken; a run that ended
// is 409.
func (h Console) CancelRun(ctx context.Context, c *app.RequestContext) error {
	id, err := httpx.PathID(c, "id")
	if err != nil {
		return err
	}
	rid, err := httpx.PathID(c, "execute_id")
	if err != nil {
		return err
	}
	run, err := h.Svc.Cancel(ctx, httpx.Caller(c), id, rid)
	if err != nil {
		return err
	}
	httpx.OK(c, map[string]any{"execute_id": strconv.FormatInt(run.ID, 10), "execute_status": executeStatus[run.Status]})
	return nil
}
