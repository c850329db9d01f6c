// Package channel holds the channels of bots: the places a published bot
// answers its users (our signed webhook, Telegram, Slack, Discord,
// Feishu, Lark, LINE and the hosted web chat). A channel belongs to one
// bot, has settings checked against its kind's spec, and serves the bot
// version last published to it.
package channel

import (
	"context"
	"strconv"
	"time"
)

// Kind names a channel platform.
type Kind string

// The kinds of channel.
const (
	KindWebhook  Kind = "webhook"
	KindTelegram Kind = "telegram"
	KindSlack    Kind = "slack"
	KindDiscord  Kind = "discord"
	KindFeishu   Kind = "feishu"
	KindLark     Kind = "lark"
	KindLINE     Kind = "line"
	KindWeb      Kind = "web"
)

// Status says whether a channel serves its bot.
type Status string

// The statuses of a channel. A failing channel is one whose platform
// refused its credentials; it is set by the runtime, not by builders.
const (
	StatusActive   Status = "active"
	StatusDisabled Status = "disabled"
	StatusFailing  Status = "failing"
)

// Settings are a channel's settings by name. A value is a string or, for
// list settings (allowed_origins), a []string.
type Settings map[string]any

// Channel is one channel of a bot. Settings hold every setting the kind
// defines, secrets included, in plain text: stores seal the secret ones
// at rest and callers mask them (Spec.Mask) before they leave the process.
type Channel struct {
	ID           int64
	BotID        int64
	WorkspaceID  int64
	Kind         Kind
	Name         string
	Status       Status
	StatusDetail string // why it is failing, in the platform's words
	Settings     Settings
	// PublishedVersion is the bot version last published to the channel;
	// 0 while the bot was never published to it.
	PublishedVersion int64
	CreatedAt        time.Time
	UpdatedAt        time.Time
}

// ConnectorID is the channel as publish's connector_ids names it.
func (c *Channel) ConnectorID() string { return strconv.FormatInt(c.ID, 10) }

// Serves reports whether the channel takes events: it is not disabled.
func (c *Channel) Serves() bool { return c.Status != StatusDisabled }

// Store keeps channels. Get, Update and Delete answer errs.ErrNotFound for
// an unknown channel or one of another bot; every write is atomic.
type Store interface {
	CreateChannel(ctx context.Context, c *Channel) error
	// GetChannel returns a channel by id whatever its bot, for callers
	// that check the bot themselves (publish, inbound events).
	GetChannel(ctx context.Context, id int64) (*Channel, error)
	ListChannels(ctx context.Context, botID int64) ([]Channel, error)
	// UpdateChannel runs fn on the channel of botID inside a transaction
	// and saves it; fn's error aborts with nothing written.
	UpdateChannel(ctx context.Context, botID, id int64, fn func(*Channel) error) (*Channel, error)
	// DeleteChannel removes the channel and its publication.
	DeleteChannel(ctx context.Context, botID, id int64) error
}
