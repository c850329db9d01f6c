// Package triggers serves the trigger routes: management under /api and
// the webhook calls under /v1/triggers.
package triggers

import (
	"context"
	"net/http"

	"github.com/cloudwego/hertz/pkg/app"

	triggerapp "github.com/pergola-ai/pergola/application/trigger"
	"github.com/pergola-ai/pergola/backend/api/httpx"
	"github.com/pergola-ai/pergola/domain/identity"
	"github.com/pergola-ai/pergola/domain/trigger"
)

// Console serves /api/triggers.
type Console struct {
	Svc *triggerapp.Service
}

type createRequest struct {
	Name            string         `json:"name"`
	Kind            string         `json:"kind"`
	WorkflowID      httpx.ID       `json:"workflow_id"`
	Inputs          map[string]any `json:"inputs"`
	Cron            string         `json:"cron"`
	TimeZone        string         `json:"time_zone"`
	IntervalSeconds float64        `json:"interval_seconds"`
	Missed          string         `json:"missed"`
	Auth            string         `json:"auth"`
	Answer          string         `json:"answer"`
	Secret          string         `json:"secret"`
	RateLimit       int            `json:"rate_limit"`
	BotID           httpx.ID       `json:"bot_id"`
	Prompt          string         `json:"prompt"`
	ChannelID       httpx.ID       `json:"channel_id"`
	ChatID          string         `json:"chat_id"`
	UserID          string         `json:"user_id"`
}

// Create answers POST /api/triggers with 201 and the trigger, with its
// webhook secret (shown this once).
func (h Console) Create(ctx context.Context, c *app.RequestContext) error {
	var r createRequest
	if err := httpx.BindJSONStrict(c, &r); err != nil {
		return err
	}
	interval, err := trigger.IntervalOf(r.IntervalSeconds)
	if err != nil {
		return err
	}
	t, err := h.Svc.Create(ctx, httpx.Caller(c), &trigger.Trigger{Name: r.Name, Kind: trigger.Kind(r.Kind),
		WorkflowID: int64(r.WorkflowID), Inputs: r.Inputs, Cron: r.Cron, TimeZone: r.TimeZone,
		Interval: interval, Missed: trigger.Missed(r.Missed),
		Auth: trigger.Auth(r.Auth), Answer: trigger.Answer(r.Answer), Secret: r.Secret, RateLimit: r.RateLimit,
		Bot: trigger.Bot{BotID: int64(r.BotID), Prompt: r.Prompt, ChannelID: int64(r.ChannelID), ChatID: r.ChatID, EndUser: r.UserID}})
	if err != nil {
		return err
	}
	d := NewDTO(t)
	d.Secret = t.Secret
	c.JSON(http.StatusCreated, httpx.Envelope{Data: d})
	return nil
}

// List answers GET /api/triggers?workspace_id&page_num&page_size with a
// page of the workspace's triggers, oldest first, and their total.
func (h Console) List(ctx context.Context, c *app.RequestContext) error {
	ws, err := httpx.QueryID(c, "workspace_id", true)
	if err != nil {
		return err
	}
	page, err := httpx.Paging(c, 20, 100)
	if err != nil {
		return err
	}
	items, total, err := h.Svc.List(ctx, httpx.Caller(c), ws, page)
	if err != nil {
		return err
	}
	out := make([]DTO, len(items))
	for i := range items {
		out[i] = NewDTO(&items[i])
	}
	httpx.OK(c, httpx.List[DTO]{Items: out, Total: total})
	return nil
}

// Get answers GET /api/triggers/:id.
func (h Console) Get(ctx context.Context, c *app.RequestContext) error {
	return h.one(ctx, c, h.Svc.Get)
}

// Pause answers POST /api/triggers/:id/pause.
func (h Console) Pause(ctx context.Context, c *app.RequestContext) error {
	return h.one(ctx, c, h.Svc.Pause)
}

// Resume answers POST /api/triggers/:id/resume.
func (h Console) Resume(ctx context.Context, c *app.RequestContext) error {
	return h.one(ctx, c, h.Svc.Resume)
}

func (h Console) one(ctx context.Context, c *app.RequestContext,
	do func(context.Context, identity.Principal, int64) (*trigger.Trigger, error)) error {
	id, err := httpx.PathID(c, "id")
	if err != nil {
		return err
	}
	t, err := do(ctx, httpx.Caller(c), id)
	if err != nil {
		return err
	}
	httpx.OK(c, NewDTO(t))
	return nil
}

// Delete answers DELETE /api/triggers/:id.
func (h Console) Delete(ctx context.Context, c *app.RequestContext) error {
	id, err := httpx.PathID(c, "id")
	if err != nil {
		return err
	}
	if err := h.Svc.Delete(ctx, httpx.Caller(c), id); err != nil {
		return err
	}
	httpx.OK(c, nil)
	return nil
}
