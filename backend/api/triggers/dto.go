package triggers

import (
	"strconv"
	"time"

	"github.com/pergola-ai/pergola/backend/api/httpx"
	"github.com/pergola-ai/pergola/domain/trigger"
)

// DTO is a trigger as the API shows it; the webhook secret only in the
// answer to its creation.
type DTO struct {
	ID              httpx.ID       `json:"id"`
	WorkspaceID     httpx.ID       `json:"workspace_id"`
	Name            string         `json:"name"`
	Kind            string         `json:"kind"`
	WorkflowID      httpx.ID       `json:"workflow_id,omitempty"`
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
	// A bot trigger's bot, prompt and target; its conversation with the
	// end user once the first run opened it.
	BotID          httpx.ID  `json:"bot_id,omitempty"`
	Prompt         string    `json:"prompt,omitempty"`
	ChannelID      httpx.ID  `json:"channel_id,omitempty"`
	ChatID         string    `json:"chat_id,omitempty"`
	UserID         string    `json:"user_id,omitempty"`
	ConversationID httpx.ID  `json:"conversation_id,omitempty"`
	CreatedAt      time.Time `json:"created_at"`
}

// NewDTO renders t without its secret.
func NewDTO(t *trigger.Trigger) DTO {
	d := DTO{ID: httpx.ID(t.ID), WorkspaceID: httpx.ID(t.WorkspaceID), Name: t.Name, Kind: string(t.Kind),
		WorkflowID: httpx.ID(t.WorkflowID), Inputs: t.Inputs, Cron: t.Cron, TimeZone: t.TimeZone,
		IntervalSeconds: t.Interval.Seconds(), Missed: string(t.Missed), Auth: string(t.Auth), Answer: string(t.Answer),
		RateLimit: t.RateLimit, State: string(t.State), PauseReason: t.PauseReason, NextRun: t.NextRun,
		LastRun: t.LastRun, LastRunID: httpx.ID(t.LastRunID), LastStatus: t.LastStatus, LastError: t.LastError,
		BotID: httpx.ID(t.Bot.BotID), Prompt: t.Bot.Prompt, ChannelID: httpx.ID(t.Bot.ChannelID), ChatID: t.Bot.ChatID,
		UserID: t.Bot.EndUser, ConversationID: httpx.ID(t.ConversationID), CreatedAt: t.CreatedAt}
	if d.Inputs == nil {
		d.Inputs = map[string]any{}
	}
	if t.Kind == trigger.KindWebhook {
		d.WebhookPath = "/v1/triggers/" + strconv.FormatInt(t.ID, 10) + "/webhook"
	}
	return d
}
