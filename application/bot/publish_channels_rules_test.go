package bot_test

import (
	"context"
	"testing"

	botapp "github.com/pergola-ai/pergola/application/bot"
	identityapp "github.com/pergola-ai/pergola/application/identity"
	"github.com/pergola-ai/pergola/domain/bot"
	"github.com/pergola-ai/pergola/domain/channel"
	"github.com/pergola-ai/pergola/domain/errs"
)

// TestPublishToChannels checks publishing per connector: each serves the
// version last published to it, the API refuses a bot not published to
// it, and only the bot's own channels that are not disabled can be named.
func TestPublishToChannels(t *testing.T) {
	e := newEnv(t)
	ctx := context.Background()
	svc := botapp.New(e.db.Bots(), e.db.Variables(), identityapp.New(e.db.Users(), e.db.Workspaces(), e.db.Tokens()), e.models,
		botapp.WithChannels(e.db.Channels()))
	b := e.create(t, bot.Config{Name: "v1"})
	other := e.create(t, bot.Config{Name: "other"})
	ch := &channel.Channel{BotID: b.ID, WorkspaceID: e.ws.ID, Kind: channel.KindWeb, Status: channel.StatusActive, Settings: channel.Settings{}}
	mustNot(t, e.db.Channels().CreateChannel(ctx, ch))

	_, err := svc.Publish(ctx, e.owner, b.ID, []string{ch.ConnectorID()})
	mustNot(t, err)
	_, _, _, err = svc.ResolveForChat(ctx, e.owner, b.ID, false)
	wantErr(t, err, errs.ErrForbidden, "not published to the corresponding channel (the API, connector 1024)")
	_, cfg, _, err := svc.ResolveForChat(ctx, e.owner, b.ID, true)
	if err != nil || cfg.Name != "v1" {
		t.Fatalf("the draft chat = %v, %v", cfg, err)
	}

	_, err = svc.Publish(ctx, e.owner, b.ID, []string{"1024"})
	mustNot(t, err)
	_, err = svc.Update(ctx, e.owner, b.ID, func(c *bot.Config) error { c.Name = "v3"; return nil })
	mustNot(t, err)
	_, err = svc.Publish(ctx, e.owner, b.ID, []string{ch.ConnectorID()})
	mustNot(t, err)
	_, cfg, version, err := svc.ResolveForChat(ctx, e.owner, b.ID, false)
	if err != nil || version != 2 || cfg.Name != "v1" {
		t.Errorf("the API serves version %d %q (%v), want 2, the last published to it", version, cfg.Name, err)
	}
	_, v, err := svc.ResolvePublished(ctx, b.ID, ch.ConnectorID())
	if err != nil || v.Number != 3 || v.Config.Name != "v3" {
		t.Errorf("the channel serves %+v (%v), want version 3", v, err)
	}

	_, err = svc.Publish(ctx, e.owner, other.ID, []string{ch.ConnectorID()})
	wantField(t, err, "connector_ids", "is not available")
	_, err = e.db.Channels().UpdateChannel(ctx, b.ID, ch.ID, func(c *channel.Channel) error { c.Status = channel.StatusDisabled; return nil })
	mustNot(t, err)
	_, err = svc.Publish(ctx, e.owner, b.ID, []string{ch.ConnectorID()})
	wantField(t, err, "connector_ids", "is disabled")
	_, err = svc.Publish(ctx, e.stranger, b.ID, []string{"77"})
	wantErr(t, err, errs.ErrNotFound, "not found")
}
