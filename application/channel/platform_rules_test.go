package channel_test

import (
	"context"
	"errors"
	"testing"

	channelapp "github.com/pergola-ai/pergola/application/channel"
	"github.com/pergola-ai/pergola/domain/bot"
	"github.com/pergola-ai/pergola/domain/channel"
	"github.com/pergola-ai/pergola/domain/errs"
	"github.com/pergola-ai/pergola/domain/identity"
)

// memStore is an in-memory channel.Store.
type memStore struct {
	next int64
	rows map[int64]channel.Channel
}

func (m *memStore) CreateChannel(_ context.Context, c *channel.Channel) error {
	m.next++
	c.ID = m.next
	m.rows[c.ID] = *c
	return nil
}

func (m *memStore) GetChannel(_ context.Context, id int64) (*channel.Channel, error) {
	c, ok := m.rows[id]
	if !ok {
		return nil, errs.NotFound("channel", "x")
	}
	return &c, nil
}

func (m *memStore) ListChannels(context.Context, int64) ([]channel.Channel, error) { return nil, nil }

func (m *memStore) UpdateChannel(context.Context, int64, int64, func(*channel.Channel) error) (*channel.Channel, error) {
	return nil, errors.New("not used")
}

func (m *memStore) DeleteChannel(_ context.Context, _, id int64) error {
	delete(m.rows, id)
	return nil
}

type anyBot struct{}

func (anyBot) Access(_ context.Context, _ identity.Principal, id int64) (*bot.Bot, *identity.Member, error) {
	return &bot.Bot{ID: id, WorkspaceID: 1}, &identity.Member{Role: identity.RoleMember}, nil
}

// refusing is a Platform whose checks fail as configured and which
// records the webhook URL it was asked to register.
type refusing struct {
	channelapp.NoPlatform
	credentials, webhook error
	registered           string
}

func (r *refusing) CheckCredentials(context.Context, *channel.Channel) error { return r.credentials }

func (r *refusing) RegisterWebhook(_ context.Context, _ *channel.Channel, url string) error {
	r.registered = url
	return r.webhook
}

var telegram = channelapp.CreateInput{Kind: "telegram", Settings: map[string]any{"bot_token": "1:x", "secret_token": "s"}}

// TestPlatformSteps checks the seam each kind's runtime plugs into: a
// refused credential check stores nothing, the webhook is registered at
// the public URL, and a refused registration removes the channel again.
func TestPlatformSteps(t *testing.T) {
	ctx := context.Background()
	store := &memStore{rows: map[int64]channel.Channel{}}
	p := &refusing{credentials: errs.Invalid("settings.bot_token", "Telegram says: Unauthorized")}
	svc := channelapp.New(store, anyBot{}, channelapp.WithPlatform(channel.KindTelegram, p), channelapp.WithPublicURL("https://bots.example.com"))

	_, err := svc.Create(ctx, identity.Principal{}, 7, telegram, "http://ignored")
	if !errors.Is(err, errs.ErrInvalid) || len(store.rows) != 0 {
		t.Fatalf("refused credentials: err %v, stored %d", err, len(store.rows))
	}
	p.credentials = nil
	c, err := svc.Create(ctx, identity.Principal{}, 7, telegram, "http://ignored")
	if err != nil || p.registered != "https://bots.example.com/channels/telegram/1" {
		t.Fatalf("create: %v, registered %q", err, p.registered)
	}
	if _, ok := store.rows[c.ID]; !ok {
		t.Fatal("channel not stored")
	}
	p.webhook = errs.Invalid("settings.bot_token", "setWebhook refused")
	if _, err := svc.Create(ctx, identity.Principal{}, 7, telegram, "http://ignored"); !errors.Is(err, errs.ErrInvalid) || len(store.rows) != 1 {
		t.Fatalf("refused webhook: err %v, stored %d (want the first channel only)", err, len(store.rows))
	}
}
