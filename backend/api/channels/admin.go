package channels

import (
	"context"

	"github.com/cloudwego/hertz/pkg/app"

	channelapp "github.com/pergola-ai/pergola/application/channel"
	"github.com/pergola-ai/pergola/backend/api/httpx"
	"github.com/pergola-ai/pergola/domain/errs"
)

// Admin serves the admins' view of every channel, under /api/admin.
type Admin struct {
	Svc *channelapp.Service
}

// OverviewDTO is a channel in the admins' list.
type OverviewDTO struct {
	ID           httpx.ID `json:"id"`
	BotID        httpx.ID `json:"bot_id"`
	WorkspaceID  httpx.ID `json:"workspace_id"`
	Kind         string   `json:"kind"`
	Name         string   `json:"name"`
	Status       string   `json:"status"`
	StatusDetail string   `json:"status_detail"`
	Events       int64    `json:"events"`
	Failures     int64    `json:"failures"`
	CreatedAt    int64    `json:"created_at"`
}

// List answers GET /api/admin/channels with every channel of every
// workspace, newest first, with counts of its events and failures.
func (h Admin) List(ctx context.Context, c *app.RequestContext) error {
	list, err := h.Svc.Overviews(ctx, httpx.Caller(c))
	if err != nil {
		return err
	}
	out := make([]OverviewDTO, len(list))
	for i, o := range list {
		ch := o.Channel
		out[i] = OverviewDTO{ID: httpx.ID(ch.ID), BotID: httpx.ID(ch.BotID), WorkspaceID: httpx.ID(ch.WorkspaceID), Kind: string(ch.Kind),
			Name: ch.Name, Status: string(ch.Status), StatusDetail: ch.StatusDetail, Events: o.Events, Failures: o.Failures,
			CreatedAt: httpx.Unix(ch.CreatedAt)}
	}
	httpx.OK(c, map[string]any{"channels": out})
	return nil
}

// Update answers PATCH /api/admin/channels/:channel_id {"status":
// "active"|"disabled"} with the channel's new status.
func (h Admin) Update(ctx context.Context, c *app.RequestContext) error {
	id, err := httpx.PathID(c, "channel_id")
	if err != nil {
		return err
	}
	var req struct {
		Status *string `json:"status"`
	}
	if err := bindKnown(c, &req, "status"); err != nil {
		return err
	}
	if req.Status == nil {
		return errs.Invalid("status", "is required: active or disabled")
	}
	ch, err := h.Svc.AdminSetStatus(ctx, httpx.Caller(c), id, *req.Status)
	if err != nil {
		return err
	}
	httpx.OK(c, map[string]any{"id": httpx.ID(ch.ID), "bot_id": httpx.ID(ch.BotID), "status": string(ch.Status)})
	return nil
}
