package triggers

import (
	"context"
	"encoding/json"

	"github.com/cloudwego/hertz/pkg/app"

	"github.com/pergola-ai/pergola/backend/api/httpx"
	"github.com/pergola-ai/pergola/domain/errs"
	"github.com/pergola-ai/pergola/domain/trigger"
)

// patchRequest is the body of PATCH /api/triggers/:id: the fields to
// change, the others left out. What a trigger runs does not change.
type patchRequest struct {
	Name            *string         `json:"name"`
	Cron            *string         `json:"cron"`
	IntervalSeconds *float64        `json:"interval_seconds"`
	TimeZone        *string         `json:"time_zone"`
	Missed          *string         `json:"missed"`
	Inputs          *map[string]any `json:"inputs"`
	RateLimit       *int            `json:"rate_limit"`
	Prompt          *string         `json:"prompt"`
	ChannelID       *httpx.ID       `json:"channel_id"`
	ChatID          *string         `json:"chat_id"`
	UserID          *string         `json:"user_id"`
	// Refused: a new trigger runs something else.
	Kind       json.RawMessage `json:"kind"`
	WorkflowID json.RawMessage `json:"workflow_id"`
	BotID      json.RawMessage `json:"bot_id"`
}

// patch converts the request, refusing the fields that cannot change.
func (r *patchRequest) patch() (trigger.Patch, error) {
	for field, v := range map[string]json.RawMessage{"kind": r.Kind, "workflow_id": r.WorkflowID, "bot_id": r.BotID} {
		if v != nil {
			return trigger.Patch{}, errs.Invalid(field, "what a trigger runs does not change: create a new trigger")
		}
	}
	p := trigger.Patch{Name: r.Name, Cron: r.Cron, TimeZone: r.TimeZone, Inputs: r.Inputs, RateLimit: r.RateLimit,
		Prompt: r.Prompt, ChatID: r.ChatID, EndUser: r.UserID}
	if r.IntervalSeconds != nil {
		d, err := trigger.IntervalOf(*r.IntervalSeconds)
		if err != nil {
			return trigger.Patch{}, err
		}
		p.Interval = &d
	}
	if r.Missed != nil {
		m := trigger.Missed(*r.Missed)
		p.Missed = &m
	}
	if r.ChannelID != nil {
		id := int64(*r.ChannelID)
		p.ChannelID = &id
	}
	return p, nil
}

// Update answers PATCH /api/triggers/:id with the edited trigger.
func (h Console) Update(ctx context.Context, c *app.RequestContext) error {
	id, err := httpx.PathID(c, "id")
	if err != nil {
		return err
	}
	var r patchRequest
	if err := httpx.BindJSONStrict(c, &r); err != nil {
		return err
	}
	p, err := r.patch()
	if err != nil {
		return err
	}
	t, err := h.Svc.Update(ctx, httpx.Caller(c), id, p)
	if err != nil {
		return err
	}
	httpx.OK(c, NewDTO(t))
	return nil
}
