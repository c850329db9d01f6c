package channel_test

import (
	"context"
	"errors"
	"sync"
	"testing"

	channelapp "github.com/pergola-ai/pergola/application/channel"
	"github.com/pergola-ai/pergola/domain/bot"
	"github.com/pergola-ai/pergola/domain/channel"
	"github.com/pergola-ai/pergola/domain/errs"
	"github.com/pergola-ai/pergola/domain/identity"
)

// memStore is an in-memory channel.Store, safe for concurrent use.
type memStore struct {
	mu   sync.Mutex
	next int64
	rows map[int64]channel.Channel
}

func (m *memStore) CreateChannel(_ context.Context, c *channel.Channel) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.next++
	c.ID = m.next
	m.rows[c.ID] = *c
	return nil
}

func (m *memStore) GetChannel(_ context.Context, id int64) (*channel.Channel, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	c, ok := m.rows[id]
	if !ok {
		return nil, errs.NotFound("channel", "x")
	}
	return &c, nil
}

func (m *memStore) ListChannels(context.Context, int64) ([]channel.Channel, error) { return nil, nil }

func (m *memStore) UpdateChannel(_ context.Context, botID, id int64, fn func(*channel.Channel) error) (*channel.Channel, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	c, ok := m.rows[id]
	if !ok || c.BotID != botID {
		return nil, errs.NotFound("channel", "x")
	}
	if err := fn(&c); err != nil {
		return nil, err
	}
	m.rows[id] = c
	return &c, nil
}

func (m *memStore) DeleteChannel(_ context.Context, _, id int64) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	delete(m.rows, id)
	return nil
}

// stored is the channel as stored now.
func (m *memStore) stored(id int64) channel.Channel {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.rows[id]
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

// countingPlatform refuses credentials as configured and counts checks.
type countingPlatform struct {
	refusing
	checks int
}

func (c *countingPlatform) CheckCredentials(ctx context.Context, ch *channel.Channel) error {
	c.checks++
	return c.refusing.CheckCredentials(ctx, ch)
}

// TestPatchRechecksChangedCredentials: a PATCH that changes settings is
// checked with the platform as creation is — a refused token is a 400
// naming the field and nothing is stored; the webhook is registered
// again; a failing channel whose new token passes is active again. A
// PATCH that leaves the settings alone calls nothing.
func TestPatchRechecksChangedCredentials(t *testing.T) {
	ctx := context.Background()
	store := &memStore{rows: map[int64]channel.Channel{}}
	p := &countingPlatform{}
	svc := channelapp.New(store, anyBot{}, channelapp.WithPlatform(channel.KindTelegram, p), channelapp.WithPublicURL("https://bots.example.com"))
	c, err := svc.Create(ctx, identity.Principal{}, 7, telegram, "")
	if err != nil {
		t.Fatal(err)
	}
	_, _ = store.UpdateChannel(ctx, 7, c.ID, func(x *channel.Channel) error {
		x.Status, x.StatusDetail = channel.StatusFailing, "telegram sendMessage: Unauthorized"
		return nil
	})
	p.checks, p.registered = 0, ""
	p.credentials = errs.Invalid("settings.bot_token", "was refused by Telegram: Unauthorized")
	_, err = svc.Update(ctx, identity.Principal{}, 7, c.ID, channelapp.Patch{Settings: map[string]any{"bot_token": "2:bad"}})
	var fe *errs.FieldError
	if !errors.As(err, &fe) || fe.Field != "settings.bot_token" || p.checks != 1 || p.registered != "" {
		t.Fatalf("refused token: err %v after %d checks, registered %q; want a 400 naming settings.bot_token, no registration", err, p.checks, p.registered)
	}
	if got := store.stored(c.ID); got.Settings["bot_token"] != "1:x" || got.Status != channel.StatusFailing {
		t.Fatalf("stored %v (%s) after a refused change; want it untouched", got.Settings, got.Status)
	}
	name := "renamed"
	if _, err := svc.Update(ctx, identity.Principal{}, 7, c.ID, channelapp.Patch{Name: &name}); err != nil || p.checks != 1 {
		t.Fatalf("rename: %v after %d checks; want no check when the settings stay", err, p.checks)
	}
	p.credentials = nil
	got, err := svc.Update(ctx, identity.Principal{}, 7, c.ID, channelapp.Patch{Settings: map[string]any{"bot_token": "3:good"}})
	if err != nil || p.checks != 2 || got.Settings["bot_token"] != "3:good" || got.Status != channel.StatusActive || got.StatusDetail != "" {
		t.Fatalf("good token: %v after %d checks, stored %+v; want it stored and the channel active", err, p.checks, got)
	}
	if p.registered != "https://bots.example.com/channels/telegram/1" {
		t.Fatalf("webhook registered at %q; want it registered again with the new settings", p.registered)
	}
}
