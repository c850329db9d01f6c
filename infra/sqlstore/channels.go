package sqlstore

import (
	"context"
	"fmt"
	"strconv"
	"time"

	"gorm.io/gorm"

	"github.com/pergola-ai/pergola/domain/channel"
	"github.com/pergola-ai/pergola/domain/errs"
)

var _ channel.Store = (*ChannelStore)(nil)

// ChannelStore keeps channels in the channels table: plain settings as
// JSON, secret ones (those the kind's spec marks Secret) sealed with the
// DB's Cipher. A channel's published version is read from
// channel_publications, which PublishBot writes.
type ChannelStore struct{ db *DB }

// Channels returns the channel store.
func (db *DB) Channels() *ChannelStore { return &ChannelStore{db: db} }

type channelRow struct {
	ID           int64 `gorm:"primaryKey;autoIncrement:false"`
	BotID        int64
	WorkspaceID  int64
	Kind         string
	Name         string
	Status       string
	StatusDetail string
	Settings     string // JSON object of the plain settings
	Secrets      string // sealed JSON object of the secret settings; "" for none
	CreatedAt    time.Time
	UpdatedAt    time.Time
}

func (channelRow) TableName() string { return "channels" }

type publicationRow struct {
	BotID       int64  `gorm:"primaryKey;autoIncrement:false"`
	ConnectorID string `gorm:"primaryKey"`
	Version     int64
	PublishedAt time.Time
}

func (publicationRow) TableName() string { return "channel_publications" }

func channelNotFound(id int64) error { return errs.NotFound("channel", strconv.FormatInt(id, 10)) }

// CreateChannel stores c, assigning its ID when zero and its timestamps.
// It returns errs.ErrNotFound when the bot does not exist.
func (s *ChannelStore) CreateChannel(ctx context.Context, c *channel.Channel) error {
	if c.ID == 0 {
		c.ID = s.db.ids.Next()
	}
	now := s.db.timestamp()
	c.CreatedAt, c.UpdatedAt = now, now
	row, err := s.db.channelToRow(c)
	if err != nil {
		return fmt.Errorf("sqlstore: create channel: %w", err)
	}
	if err := s.db.gorm.WithContext(ctx).Create(row).Error; err != nil {
		if isMissingParent(err) {
			return botNotFound(c.BotID)
		}
		return fmt.Errorf("sqlstore: create channel: %w", err)
	}
	return nil
}

// GetChannel returns a channel with its published version, or
// errs.ErrNotFound.
func (s *ChannelStore) GetChannel(ctx context.Context, id int64) (*channel.Channel, error) {
	var row channelRow
	if err := s.db.gorm.WithContext(ctx).Where("id = ?", id).Take(&row).Error; err != nil {
		if isNoRow(err) {
			return nil, channelNotFound(id)
		}
		return nil, fmt.Errorf("sqlstore: get channel: %w", err)
	}
	return s.withVersion(ctx, &row)
}

// withVersion decodes a row and reads its published version.
func (s *ChannelStore) withVersion(ctx context.Context, row *channelRow) (*channel.Channel, error) {
	c, err := s.db.channelFromRow(row)
	if err != nil {
		return nil, err
	}
	var pubs []publicationRow
	err = s.db.gorm.WithContext(ctx).Where("bot_id = ? AND connector_id = ?", row.BotID, c.ConnectorID()).Find(&pubs).Error
	if err != nil {
		return nil, fmt.Errorf("sqlstore: channel publication: %w", err)
	}
	if len(pubs) > 0 {
		c.PublishedVersion = pubs[0].Version
	}
	return c, nil
}

// ListChannels returns the channels of a bot, oldest first.
func (s *ChannelStore) ListChannels(ctx context.Context, botID int64) ([]channel.Channel, error) {
	var rows []channelRow
	q := s.db.gorm.WithContext(ctx)
	if err := q.Where("bot_id = ?", botID).Order("created_at, id").Find(&rows).Error; err != nil {
		return nil, fmt.Errorf("sqlstore: list channels: %w", err)
	}
	var pubs []publicationRow
	if err := q.Where("bot_id = ?", botID).Find(&pubs).Error; err != nil {
		return nil, fmt.Errorf("sqlstore: list channel publications: %w", err)
	}
	versions := make(map[string]int64, len(pubs))
	for _, p := range pubs {
		versions[p.ConnectorID] = p.Version
	}
	out := make([]channel.Channel, len(rows))
	for i := range rows {
		c, err := s.db.channelFromRow(&rows[i])
		if err != nil {
			return nil, err
		}
		c.PublishedVersion = versions[c.ConnectorID()]
		out[i] = *c
	}
	return out, nil
}

// UpdateChannel runs fn on the channel of botID under a row lock and saves
// every field but ID, BotID, WorkspaceID, Kind and CreatedAt. It returns
// errs.ErrNotFound for an unknown channel or one of another bot, fn's
// error as it is (nothing written).
func (s *ChannelStore) UpdateChannel(ctx context.Context, botID, id int64, fn func(*channel.Channel) error) (*channel.Channel, error) {
	row, err := updateLocked(ctx, s.db, "update channel", func() error { return channelNotFound(id) },
		func(r *channelRow) error { return s.db.changeChannelRow(r, fn) }, "id = ? AND bot_id = ?", id, botID)
	if err != nil {
		return nil, err
	}
	return s.withVersion(ctx, row)
}

// changeChannelRow decodes r, applies fn and encodes the result into r.
func (db *DB) changeChannelRow(r *channelRow, fn func(*channel.Channel) error) error {
	c, err := db.channelFromRow(r)
	if err != nil {
		return err
	}
	if err := fn(c); err != nil {
		return err
	}
	c.ID, c.BotID, c.WorkspaceID, c.Kind, c.CreatedAt = r.ID, r.BotID, r.WorkspaceID, channel.Kind(r.Kind), r.CreatedAt
	c.UpdatedAt = db.timestamp()
	next, err := db.channelToRow(c)
	if err != nil {
		return err
	}
	*r = *next
	return nil
}

// DeleteChannel removes a channel of botID and its publication, in one
// transaction; errs.ErrNotFound when there is no such channel.
func (s *ChannelStore) DeleteChannel(ctx context.Context, botID, id int64) error {
	err := s.db.gorm.WithContext(ctx).Transaction(func(tx *gorm.DB) error {
		res := tx.Where("id = ? AND bot_id = ?", id, botID).Delete(&channelRow{})
		if res.Error != nil {
			return res.Error
		}
		if res.RowsAffected == 0 {
			return channelNotFound(id)
		}
		return tx.Where("bot_id = ? AND connector_id = ?", botID, strconv.FormatInt(id, 10)).Delete(&publicationRow{}).Error
	})
	if err != nil && !isDomain(err) {
		return fmt.Errorf("sqlstore: delete channel: %w", err)
	}
	return err
}
