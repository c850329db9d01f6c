package channels

import (
	"context"
	"strconv"

	"github.com/cloudwego/hertz/pkg/app"

	channelapp "github.com/pergola-ai/pergola/application/channel"
	"github.com/pergola-ai/pergola/backend/api/httpx"
	"github.com/pergola-ai/pergola/domain/channel"
	"github.com/pergola-ai/pergola/domain/errs"
)

// DeliveryDTO is one inbound event and what became of it.
type DeliveryDTO struct {
	ID             httpx.ID `json:"id"`
	EventID        string   `json:"event_id"`
	EndUser        string   `json:"end_user"`
	ChatID         string   `json:"chat_id"` // "" when no chat ran
	ConversationID string   `json:"conversation_id"`
	Status         string   `json:"status"`
	TurnAttempts   int      `json:"turn_attempts"`
	Apology        bool     `json:"apology"` // the bot could not answer: the end user got the apology
	Attempts       int      `json:"attempts"`
	PartsSent      int      `json:"parts_sent"`      // messages of the answer delivered; a retry resumes after them
	NextAttemptAt  int64    `json:"next_attempt_at"` // when the next try is due; 0: none planned
	Error          string   `json:"error"`
	LatencyMS      int64    `json:"latency_ms"`
	CreatedAt      int64    `json:"created_at"`
	UpdatedAt      int64    `json:"updated_at"`
}

func deliveryDTO(d *channel.Delivery) DeliveryDTO {
	return DeliveryDTO{ID: httpx.ID(d.ID), EventID: d.EventID, EndUser: d.EndUser, ChatID: httpx.OptionalID(d.ChatID),
		ConversationID: httpx.OptionalID(d.ConversationID), Status: string(d.Status), TurnAttempts: d.TurnAttempts, Apology: d.Apology,
		Attempts: d.Attempts, PartsSent: d.PartsSent, NextAttemptAt: httpx.UnixPtr(d.NextAttemptAt), Error: d.Error,
		LatencyMS: d.LatencyMS, CreatedAt: httpx.Unix(d.CreatedAt), UpdatedAt: httpx.Unix(d.UpdatedAt)}
}

// Deliveries answers GET /api/bots/:id/channels/:channel_id/deliveries
// ?limit=&before_id= with {deliveries, has_more, next_before_id}, newest
// first.
func (h Console) Deliveries(ctx context.Context, c *app.RequestContext) error {
	botID, id, err := ids(c)
	if err != nil {
		return err
	}
	before, err := httpx.QueryID(c, "before_id", false)
	if err != nil {
		return err
	}
	limit := 0
	if v := string(c.Query("limit")); v != "" {
		if limit, err = strconv.Atoi(v); err != nil || limit == 0 {
			return errs.Invalid("limit", "must be an integer from 1 to %d, got %q", channelapp.MaxDeliveriesPage, v)
		}
	}
	list, more, err := h.Svc.Deliveries(ctx, httpx.Caller(c), botID, id, before, limit)
	if err != nil {
		return err
	}
	out := make([]DeliveryDTO, len(list))
	for i := range list {
		out[i] = deliveryDTO(&list[i])
	}
	next := ""
	if more {
		next = strconv.FormatInt(list[len(list)-1].ID, 10)
	}
	httpx.OK(c, map[string]any{"deliveries": out, "has_more": more, "next_before_id": next})
	return nil
}
