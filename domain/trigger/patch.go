package trigger

import (
	"time"

	"github.com/pergola-ai/pergola/domain/errs"
)

// Patch is an edit of a trigger; nil fields stay as they are. What a
// trigger runs (its kind, workflow or bot) does not change: a new trigger
// does that.
type Patch struct {
	Name      *string
	Cron      *string
	Interval  *time.Duration
	TimeZone  *string
	Missed    *Missed
	Inputs    *map[string]any
	RateLimit *int
	Prompt    *string
	ChannelID *int64
	ChatID    *string
	EndUser   *string
}

// Apply returns t with p applied, checked as a new trigger is (naming the
// field at fault). Giving a cron expression drops the interval and the
// other way round; giving a channel drops the end user and the other way
// round.
func (p Patch) Apply(t Trigger) (Trigger, error) {
	if field := p.botField(); field != "" && !t.IsBot() {
		return t, errs.Invalid(field, "only a bot trigger has a prompt and a target; this one runs workflow %d", t.WorkflowID)
	}
	if t.Kind != KindSchedule && (p.ScheduleChanged() || p.Missed != nil) {
		return t, errs.Invalid("cron", "a webhook trigger has no schedule")
	}
	if p.Inputs != nil && t.IsBot() {
		return t, errs.Invalid("inputs", "a bot trigger takes a prompt, not inputs")
	}
	p.applySchedule(&t)
	p.applyBot(&t.Bot)
	set(&t.Name, p.Name)
	set(&t.Missed, p.Missed)
	set(&t.Inputs, p.Inputs)
	set(&t.RateLimit, p.RateLimit)
	return t, t.Check()
}

func (p Patch) applySchedule(t *Trigger) {
	if p.Cron != nil && p.Interval == nil {
		t.Interval = 0
	}
	if p.Interval != nil && p.Cron == nil {
		t.Cron = ""
	}
	set(&t.Cron, p.Cron)
	set(&t.Interval, p.Interval)
	set(&t.TimeZone, p.TimeZone)
}

func (p Patch) applyBot(b *Bot) {
	if p.EndUser != nil && p.ChannelID == nil && p.ChatID == nil {
		b.ChannelID, b.ChatID = 0, ""
	}
	if (p.ChannelID != nil || p.ChatID != nil) && p.EndUser == nil {
		b.EndUser = ""
	}
	set(&b.Prompt, p.Prompt)
	set(&b.ChannelID, p.ChannelID)
	set(&b.ChatID, p.ChatID)
	set(&b.EndUser, p.EndUser)
}

// botField names the first field of a bot trigger that p sets; "" for
// none.
func (p Patch) botField() string {
	switch {
	case p.Prompt != nil:
		return "prompt"
	case p.ChannelID != nil:
		return "channel_id"
	case p.ChatID != nil:
		return "chat_id"
	case p.EndUser != nil:
		return "user_id"
	}
	return ""
}

// TargetChanged reports whether p changes where a bot trigger's answer
// goes.
func (p Patch) TargetChanged() bool { return p.ChannelID != nil || p.ChatID != nil || p.EndUser != nil }

// ScheduleChanged reports whether p changes when the trigger fires.
func (p Patch) ScheduleChanged() bool { return p.Cron != nil || p.Interval != nil || p.TimeZone != nil }

func set[T any](dst *T, v *T) {
	if v != nil {
		*dst = *v
	}
}
