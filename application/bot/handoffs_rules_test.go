package bot_test

import (
	"context"
	"testing"

	"github.com/pergola-ai/pergola/domain/bot"
)

// TestHandoffTargets: a bot hands off only to other bots of its
// workspace, on create, update and publish; the target's name is
// recorded for its transfer tool.
func TestHandoffTargets(t *testing.T) {
	e := newEnv(t)
	ctx := context.Background()
	billing := e.create(t, bot.Config{Name: "Billing", Model: bot.ModelSettings{ModelID: "tooly"}})
	foreign, err := e.svc.Create(ctx, e.stranger, e.other.ID, bot.Config{Name: "Foreign", Model: bot.ModelSettings{ModelID: "tooly"}})
	mustNot(t, err)

	_, err = e.svc.Create(ctx, e.owner, e.ws.ID, bot.Config{Name: "Support", Model: bot.ModelSettings{ModelID: "tooly"},
		Handoffs: []bot.Handoff{{BotID: foreign.ID}}})
	wantField(t, err, "handoffs[0].bot_id", "is not a bot of this workspace")

	support := e.create(t, bot.Config{Name: "Support", Model: bot.ModelSettings{ModelID: "tooly"},
		Handoffs: []bot.Handoff{{BotID: billing.ID, Description: "billing"}}})
	if h := support.Draft.Handoffs; len(h) != 1 || h[0].Name != "Billing" {
		t.Fatalf("handoffs = %+v; want Billing's name recorded", h)
	}
	_, err = e.svc.Update(ctx, e.owner, support.ID, func(c *bot.Config) error {
		c.Handoffs = append(c.Handoffs, bot.Handoff{BotID: support.ID})
		return nil
	})
	wantField(t, err, "handoffs[1].bot_id", "is this bot itself")
	_, err = e.svc.Publish(ctx, e.owner, support.ID, nil)
	mustNot(t, err)
}
