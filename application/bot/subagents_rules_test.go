package bot_test

import (
	"context"
	"fmt"
	"testing"

	"github.com/pergola-ai/pergola/domain/bot"
)

// TestSubAgentRules: sub-agents are bots of the workspace, not the bot
// itself, not listed twice, described, and never form a cycle, through
// drafts and published versions alike; the error names what to fix.
func TestSubAgentRules(t *testing.T) {
	e := newEnv(t)
	ctx := context.Background()
	tooly := bot.ModelSettings{ModelID: "tooly"}
	a := e.create(t, bot.Config{Name: "A", Model: tooly})
	b := e.create(t, bot.Config{Name: "B", Model: tooly, SubAgents: []bot.SubAgent{{BotID: a.ID, Description: "does a"}}})
	foreign, err := e.svc.Create(ctx, e.stranger, e.other.ID, bot.Config{Name: "F", Model: tooly})
	mustNot(t, err)
	set := func(id int64, subs ...bot.SubAgent) error {
		_, err := e.svc.Update(ctx, e.owner, id, func(c *bot.Config) error { c.SubAgents = subs; return nil })
		return err
	}

	wantField(t, set(a.ID, bot.SubAgent{BotID: a.ID, Description: "me"}), "sub_agents[0].bot_id", "its own sub-agent")
	wantField(t, set(a.ID, bot.SubAgent{BotID: foreign.ID, Description: "x"}), "sub_agents[0].bot_id", "does not exist in this workspace")
	wantField(t, set(a.ID, bot.SubAgent{BotID: b.ID}), "sub_agents[0].description", "is required")
	wantField(t, set(a.ID, bot.SubAgent{BotID: b.ID, Description: "x"}, bot.SubAgent{BotID: b.ID, Description: "y"}),
		"sub_agents[1].bot_id", "listed twice")
	cycle := fmt.Sprintf("form a cycle: bot %d → bot %d → bot %d", a.ID, b.ID, a.ID)
	wantField(t, set(a.ID, bot.SubAgent{BotID: b.ID, Description: "does b"}), "sub_agents", cycle)

	// B's published version still calls A after its draft stops: a cycle.
	_, err = e.svc.Publish(ctx, e.owner, b.ID, nil)
	mustNot(t, err)
	mustNot(t, set(b.ID))
	wantField(t, set(a.ID, bot.SubAgent{BotID: b.ID, Description: "does b"}), "sub_agents", cycle)
	_, err = e.svc.Publish(ctx, e.owner, b.ID, nil)
	mustNot(t, err)
	mustNot(t, set(a.ID, bot.SubAgent{BotID: b.ID, Description: "does b"}))
}
