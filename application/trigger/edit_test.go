package trigger

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/pergola-ai/pergola/domain/errs"
	"github.com/pergola-ai/pergola/domain/identity"
	"github.com/pergola-ai/pergola/domain/trigger"
)

func (m *memStore) Get(context.Context, int64) (*trigger.Trigger, error) {
	t := m.get()
	return &t, nil
}

func (m *memStore) Update(_ context.Context, t *trigger.Trigger) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	state, next := m.t.State, m.t.NextRun
	m.t = *t
	m.t.State, m.t.NextRun = state, next // Update leaves them to SetState
	return nil
}

func TestUpdateBotTrigger(t *testing.T) {
	svc, st, _, _, tick := botSetup(trigger.Bot{BotID: 5, Prompt: "plan", EndUser: "ann"}, false)
	st.t.ConversationID = 70
	p := identity.Principal{UserID: 9, Scopes: []string{identity.ScopeWorkflow, identity.ScopeBot}}
	ctx := context.Background()

	prompt := "tomorrow"
	got, err := svc.Update(ctx, p, 3, trigger.Patch{Prompt: &prompt})
	if err != nil || got.Bot.Prompt != "tomorrow" || got.ConversationID != 70 || !got.NextRun.Equal(tick) {
		t.Fatalf("prompt edited = %+v, %v; want the conversation and the next tick kept", got, err)
	}

	hourly, channel, chat := time.Hour, int64(8), "-100"
	got, err = svc.Update(ctx, p, 3, trigger.Patch{Interval: &hourly, ChannelID: &channel, ChatID: &chat})
	if err != nil {
		t.Fatal(err)
	}
	if want := svc.d.Now().Add(time.Hour); !got.NextRun.Equal(want) || got.Bot.EndUser != "" || got.ConversationID != 0 {
		t.Errorf("moved to a channel hourly = %+v; want next run %v, no end user, no conversation", got, want)
	}

	bad := "every day"
	_, err = svc.Update(ctx, p, 3, trigger.Patch{Cron: &bad})
	var fe *errs.FieldError
	if !errors.As(err, &fe) || fe.Field != "cron" {
		t.Errorf("bad cron: %v, want an error on cron", err)
	}
	if st.get().Interval != time.Hour {
		t.Errorf("a refused edit changed the trigger: %+v", st.get())
	}
}
