package sqlstore

import (
	"context"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"gorm.io/gorm"

	"github.com/pergola-ai/pergola/domain/bot"
	"github.com/pergola-ai/pergola/domain/channel"
	"github.com/pergola-ai/pergola/domain/errs"
)

func TestChannelStore(t *testing.T) { forEachBackend(t, testChannelStore) }

func newStoredChannel(t *testing.T, db *DB, b *bot.Bot, kind channel.Kind, s channel.Settings) *channel.Channel {
	t.Helper()
	c := &channel.Channel{BotID: b.ID, WorkspaceID: b.WorkspaceID, Kind: kind, Name: string(kind), Status: channel.StatusActive, Settings: s}
	mustNot(t, db.Channels().CreateChannel(context.Background(), c))
	return c
}

func testChannelStore(t *testing.T, db *DB) {
	ctx := context.Background()
	store := db.Channels()
	ada := newUser(t, db, "ada@x.io")
	ws := newWorkspace(t, db, "W", ada.ID)
	b := newStoredBot(t, db, ws.ID, ada.ID, "one")
	other := newStoredBot(t, db, ws.ID, ada.ID, "two")
	const token = "123456:telegram-bot-token-XYZ"
	tg := newStoredChannel(t, db, b, channel.KindTelegram, channel.Settings{"bot_token": token, "secret_token": "s3cr3t", "api_base_url": "http://127.0.0.1:9"})
	web := newStoredChannel(t, db, b, channel.KindWeb, channel.Settings{"allowed_origins": []string{"https://a.example"}})

	t.Run("secrets are sealed at rest and opened on read", func(t *testing.T) {
		var row channelRow
		mustNot(t, db.gorm.Where("id = ?", tg.ID).Take(&row).Error)
		if strings.Contains(row.Secrets, token) || strings.Contains(row.Settings, token) || strings.Contains(row.Secrets, "s3cr3t") || !strings.HasPrefix(row.Secrets, "v1:") {
			t.Errorf("stored row shows a secret: settings %q secrets %q", row.Settings, row.Secrets)
		}
		got, err := store.GetChannel(ctx, tg.ID)
		mustNot(t, err)
		if diff := cmp.Diff(tg.Settings, got.Settings); diff != "" || got.Kind != channel.KindTelegram || got.BotID != b.ID {
			t.Errorf("read back (-want +got):\n%s", diff)
		}
		got, err = store.GetChannel(ctx, web.ID)
		mustNot(t, err)
		if diff := cmp.Diff(web.Settings, got.Settings); diff != "" {
			t.Errorf("list setting read back (-want +got):\n%s", diff)
		}
	})
	t.Run("list, update and publications", func(t *testing.T) {
		list, err := store.ListChannels(ctx, b.ID)
		mustNot(t, err)
		if len(list) != 2 || list[0].ID != tg.ID || list[1].ID != web.ID {
			t.Fatalf("list = %+v", list)
		}
		v := &bot.Version{BotID: b.ID, Config: fullBotConfig("one"), Connectors: []string{"1024", tg.ConnectorID()}, PublisherID: ada.ID}
		mustNot(t, db.Bots().PublishBot(ctx, ws.ID, v))
		v2 := &bot.Version{BotID: b.ID, Config: fullBotConfig("one"), Connectors: []string{tg.ConnectorID()}, PublisherID: ada.ID}
		mustNot(t, db.Bots().PublishBot(ctx, ws.ID, v2))
		if n, _ := db.Bots().PublishedTo(ctx, b.ID, "1024"); n != 1 {
			t.Errorf("API serves version %d, want 1", n)
		}
		got, err := store.UpdateChannel(ctx, b.ID, tg.ID, func(c *channel.Channel) error {
			c.Status, c.Name, c.Kind = channel.StatusDisabled, "renamed", channel.KindSlack
			return nil
		})
		mustNot(t, err)
		if got.Status != channel.StatusDisabled || got.Name != "renamed" || got.Kind != channel.KindTelegram || got.PublishedVersion != 2 {
			t.Errorf("updated = %+v", got)
		}
		_, err = store.UpdateChannel(ctx, other.ID, tg.ID, func(*channel.Channel) error { return nil })
		wantErr(t, err, errs.ErrNotFound, "channel")
		_, err = store.UpdateChannel(ctx, b.ID, tg.ID, func(c *channel.Channel) error { c.Name = "x"; return errs.Invalid("name", "no") })
		wantErr(t, err, errs.ErrInvalid, "name")
		if again, _ := store.GetChannel(ctx, tg.ID); again.Name != "renamed" {
			t.Errorf("a refused update wrote name %q", again.Name)
		}
	})
	t.Run("delete removes the channel and its publication", func(t *testing.T) {
		wantErr(t, store.DeleteChannel(ctx, other.ID, tg.ID), errs.ErrNotFound, "channel")
		mustNot(t, store.DeleteChannel(ctx, b.ID, tg.ID))
		_, err := store.GetChannel(ctx, tg.ID)
		wantErr(t, err, errs.ErrNotFound, "channel")
		if n, _ := db.Bots().PublishedTo(ctx, b.ID, tg.ConnectorID()); n != 0 {
			t.Errorf("deleted channel still serves version %d", n)
		}
		mustNot(t, db.Bots().DeleteBot(ctx, ws.ID, b.ID))
		if _, err := store.GetChannel(ctx, web.ID); err == nil {
			t.Error("deleting the bot left its channel")
		}
	})
	t.Run("a channel of an unknown bot is refused", func(t *testing.T) {
		c := &channel.Channel{BotID: 424242, WorkspaceID: ws.ID, Kind: channel.KindWeb, Status: channel.StatusActive, Settings: channel.Settings{}}
		wantErr(t, store.CreateChannel(ctx, c), errs.ErrNotFound, "bot 424242")
	})
}

// TestMigration10Backfill checks that migration 10 records, for bots
// published before it, the latest version of each connector, so a bot on
// the API keeps answering there.
func TestMigration10Backfill(t *testing.T) { forEachBackend(t, testMigration10Backfill) }

func testMigration10Backfill(t *testing.T, db *DB) {
	ctx := context.Background()
	ada := newUser(t, db, "ada@x.io")
	ws := newWorkspace(t, db, "W", ada.ID)
	b := newStoredBot(t, db, ws.ID, ada.ID, "one")
	for _, cs := range [][]string{{"1024"}, {"999", "1024"}, {"999"}} {
		mustNot(t, db.Bots().PublishBot(ctx, ws.ID, &bot.Version{BotID: b.ID, Config: fullBotConfig("one"), Connectors: cs, PublisherID: ada.ID}))
	}
	mustNot(t, db.gorm.Where("bot_id = ?", b.ID).Delete(&publicationRow{}).Error)
	mustNot(t, db.gorm.Transaction(func(tx *gorm.DB) error { return up0010(tx) }))
	mustNot(t, db.gorm.Transaction(func(tx *gorm.DB) error { return up0010(tx) })) // runs again safely
	for connector, want := range map[string]int64{"1024": 2, "999": 3, "5": 0} {
		if got, err := db.Bots().PublishedTo(ctx, b.ID, connector); err != nil || got != want {
			t.Errorf("connector %s serves version %d (%v), want %d", connector, got, err, want)
		}
	}
}
