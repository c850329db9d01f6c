// Package triggers serves the trigger routes: management under /api and
// the webhook calls under /v1/triggers.
package triggers

import (
	"context"
	"net/http"
	"strconv"
	"time"

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

// DTO is a trigger as the API shows it; the webhook secret only in the
// answer to its creation.
type DTO struct {
	ID              httpx.ID       `json:"id"`
	WorkspaceID     httpx.ID       `json:"workspace_id"`
	Name            string         `json:"name"`
	Kind            string         `json:"kind"`
	WorkflowID      httpx.ID       `json:"workflow_id"`
	Inputs          map[string]any `json:"inputs"`
	Cron            string         `json:"cron,omitempty"`
	TimeZone        string         `json:"time_zone,omitempty"`
	IntervalSeconds float64        `json:"interval_seconds,omitempty"`
	Missed          string         `json:"missed,omitempty"`
	Auth            string         `json:"auth,omitempty"`
	Answer          string         `json:"answer,omitempty"`
	Secret          string         `json:"secret,omitempty"`
	WebhookPath     string         `json:"webhook_path,omitempty"`
	RateLimit       int            `json:"rate_limit"`
	State           string         `json:"state"`
	PauseReason     string         `json:"pause_reason,omitempty"`
	NextRun         *time.Time     `json:"next_run,omitempty"`
	LastRun         *time.Time     `json:"last_run,omitempty"`
	LastRunID       httpx.ID       `json:"last_run_id,omitempty"`
	LastStatus      string         `json:"last_status,omitempty"`
	LastError       string         `json:"last_error,omitempty"`
	CreatedAt       time.Time      `json:"created_at"`
}

// NewDTO renders t without its secret.
func NewDTO(t *trigger.Trigger) DTO {
	d := DTO{ID: httpx.ID(t.ID), WorkspaceID: httpx.ID(t.WorkspaceID), Name: t.Name, Kind: string(t.Kind),
		WorkflowID: httpx.ID(t.WorkflowID), Inputs: t.Inputs, Cron: t.Cron, TimeZone: t.TimeZone,
		IntervalSeconds: t.Interval.Seconds(), Missed: string(t.Missed), Auth: string(t.Auth), Answer: string(t.Answer),
		RateLimit: t.RateLimit, State: string(t.State), PauseReason: t.PauseReason, NextRun: t.NextRun,
		LastRun: t.LastRun, LastRunID: httpx.ID(t.LastRunID), LastStatus: t.LastStatus, LastError: t.LastError,
		CreatedAt: t.CreatedAt}
	if d.Inputs == nil {
		d.Inputs = map[string]any{}
	}
	if t.Kind == trigger.KindWebhook {
		d.WebhookPath = "/v1/triggers/" + strconv.FormatInt(t.ID, 10) + "/webhook"
	}
	return d
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
}

// Create answers POST /api/triggers with 201 and the trigger, with its
// webhook secret (shown this once).
func (h Console) Create(ctx context.Context, c *app.RequestContext) error {
	var r createRequest
	if err := httpx.BindJSON(c, &r); err != nil {
		return err
	}
	t, err := h.Svc.Create(ctx, httpx.Caller(c), &trigger.Trigger{Name: r.Name, Kind: trigger.Kind(r.Kind),
		WorkflowID: int64(r.WorkflowID), Inputs: r.Inputs, Cron: r.Cron, TimeZone: r.TimeZone,
		Interval: time.Duration(r.IntervalSeconds * float64(time.Second)), Missed: trigger.Missed(r.Missed),
		Auth: trigger.Auth(r.Auth), Answer: trigger.Answer(r.Answer), Secret: r.Secret, RateLimit: r.RateLimit})
	if err != nil {
		return err
	}
	d := NewDTO(t)
	d.Secret = t.Secret
	c.JSON(http.StatusCreated, httpx.Envelope{Data: d})
	return nil
}

// List answers GET /api/triggers?workspace_id.
func (h Console) List(ctx context.Context, c *app.RequestContext) error {
	ws, err := httpx.QueryID(c, "workspace_id", true)
	if err != nil {
		return err
	}
	items, err := h.Svc.List(ctx, httpx.Caller(c), ws)
	if err != nil {
		return err
	}
	out := make([]DTO, len(items))
	for i := range items {
		out[i] = NewDTO(&items[i])
	}
	httpx.OK(c, httpx.List[DTO]{Items: out, Total: int64(len(out))})
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
