package trigger

import (
	"errors"
	"testing"
	"time"

	"github.com/pergola-ai/pergola/domain/errs"
)

func ptr[T any](v T) *T { return &v }

func botTrigger() Trigger {
	return Trigger{ID: 3, Name: "plan", Kind: KindSchedule, Cron: "0 8 * * *", Missed: MissedSkip,
		Bot: Bot{BotID: 5, Prompt: "the day's plan", ChannelID: 8, ChatID: "-100"}}
}

func TestPatchSwitchesScheduleAndTarget(t *testing.T) {
	got, err := Patch{Interval: ptr(time.Hour), EndUser: ptr("ann"), Prompt: ptr("  tomorrow  ")}.Apply(botTrigger())
	if err != nil {
		t.Fatal(err)
	}
	if got.Cron != "" || got.Interval != time.Hour || got.Bot != (Bot{BotID: 5, Prompt: "tomorrow", EndUser: "ann"}) {
		t.Errorf("patched = %+v", got)
	}
	if got.UserID() != "ann" {
		t.Errorf("user of the runs = %q, want the end user", got.UserID())
	}
	back, err := Patch{Cron: ptr("@daily"), ChannelID: ptr(int64(9)), ChatID: ptr("C42")}.Apply(got)
	if err != nil || back.Interval != 0 || back.Bot.EndUser != "" || back.Bot.ChannelID != 9 || back.UserID() != "trigger:3" {
		t.Errorf("patched back = %+v, %v", back, err)
	}
}

func TestPatchRefusals(t *testing.T) {
	wf := Trigger{Name: "wf", Kind: KindSchedule, WorkflowID: 7, Interval: time.Minute}
	hook := Trigger{Name: "hook", Kind: KindWebhook, WorkflowID: 7}
	for field, c := range map[string]struct {
		t Trigger
		p Patch
	}{
		"name":       {botTrigger(), Patch{Name: ptr(" ")}},
		"prompt":     {wf, Patch{Prompt: ptr("hello")}},
		"inputs":     {botTrigger(), Patch{Inputs: &map[string]any{"a": 1}}},
		"cron":       {hook, Patch{Cron: ptr("@daily")}},
		"missed":     {wf, Patch{Missed: ptr(Missed("all"))}},
		"user_id":    {botTrigger(), Patch{EndUser: ptr("ann"), ChatID: ptr("-1")}},
		"chat_id":    {botTrigger(), Patch{ChatID: ptr(" ")}},
		"channel_id": {botTrigger(), Patch{EndUser: ptr("")}},
	} {
		_, err := c.p.Apply(c.t)
		var fe *errs.FieldError
		if !errors.As(err, &fe) || fe.Field != field {
			t.Errorf("%s: error %v, want one on %s", field, err, field)
		}
	}
}

func TestBotTriggerChecks(t *testing.T) {
	for field, b := range map[string]Trigger{
		"bot_id":  {Name: "x", Kind: KindSchedule, WorkflowID: 7, Bot: Bot{BotID: 5, Prompt: "p", EndUser: "ann"}},
		"kind":    {Name: "x", Kind: KindWebhook, Bot: Bot{BotID: 5, Prompt: "p", EndUser: "ann"}},
		"prompt":  {Name: "x", Kind: KindSchedule, Bot: Bot{BotID: 5, EndUser: "ann"}},
		"user_id": {Name: "x", Kind: KindSchedule, Bot: Bot{BotID: 5, Prompt: "p", EndUser: " ann"}},
	} {
		err := b.Check()
		var fe *errs.FieldError
		if !errors.As(err, &fe) || fe.Field != field {
			t.Errorf("%s: error %v, want one on %s", field, err, field)
		}
	}
}
