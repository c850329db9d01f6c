package chat

import (
	"context"
	"testing"

	"github.com/pergola-ai/pergola/domain/bot"
	"github.com/pergola-ai/pergola/domain/errs"
)

// channelPublished serves published versions of other bots, each to the
// connectors listed.
type channelPublished struct {
	bots map[int64]publishedBot
}

type publishedBot struct {
	bot        bot.Bot
	version    bot.Version
	connectors []string
}

func (f *channelPublished) ResolvePublished(_ context.Context, id int64, connector string) (*bot.Bot, *bot.Version, error) {
	p, ok := f.bots[id]
	if !ok {
		return nil, nil, errs.NotFound("bot", idString(id))
	}
	for _, c := range p.connectors {
		if c == connector {
			b, v := p.bot, p.version
			return &b, &v, nil
		}
	}
	return nil, nil, errs.Forbidden("bot %d is not published to %s", id, connector)
}

func (m *memStore) SetActiveBot(_ context.Context, _, _, botID int64) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.conv.ActiveBotID = botID
	return nil
}

func (m *memStore) activeBot() int64 {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.conv.ActiveBotID
}

// newHandoffHarness is a harness whose bot 7 ("Support") hands off to
// bot 8 ("Billing", published to the API, which hands back and has a
// client tool, lookup) and bot 9
// ("Sales", published nowhere), with at most max handoffs a turn.
func newHandoffHarness(t *testing.T, max int) *harness {
	t.Helper()
	h := newHarness(t, bot.Config{Name: "Support", Prompt: "You are Support.",
		Handoffs: []bot.Handoff{{BotID: 8, Name: "Billing", Description: "billing questions"}, {BotID: 9, Name: "Sales"}}})
	billing := bot.Config{Name: "Billing", Prompt: "You are Billing.", Model: bot.ModelSettings{ModelID: "fake"},
		Handoffs: []bot.Handoff{{BotID: 7, Name: "Support"}}, ClientTools: []bot.ClientTool{{Name: "lookup"}}}
	billing.Normalize()
	sales := bot.Config{Name: "Sales", Prompt: "You are Sales.", Model: bot.ModelSettings{ModelID: "fake"}}
	sales.Normalize()
	d := h.svc.d
	d.Published = &channelPublished{bots: map[int64]publishedBot{
		8: {bot: bot.Bot{ID: 8, WorkspaceID: 1, PublishedVersion: 2}, version: bot.Version{BotID: 8, Number: 2, Config: billing}, connectors: []string{ConnectorAPI}},
		9: {bot: bot.Bot{ID: 9, WorkspaceID: 1, PublishedVersion: 1}, version: bot.Version{BotID: 9, Number: 1, Config: sales}},
	}}
	d.ActiveBots, d.MaxHandoffs = h.store, max
	h.svc = New(d)
	t.Cleanup(func() { _ = h.svc.Close(context.Background()) })
	return h
}
