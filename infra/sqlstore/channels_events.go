package sqlstore

import (
	"context"
	"fmt"
	"strconv"
	"time"

	"gorm.io/gorm/clause"

	"github.com/pergola-ai/pergola/domain/channel"
	"github.com/pergola-ai/pergola/domain/errs"
)

var _ channel.EventStore = (*ChannelEventStore)(nil)

// ChannelEventStore keeps the inbound events of channels in
// channel_events and the conversation map in channel_conversations.
type ChannelEventStore struct{ db *DB }

// ChannelEvents returns the channel event store.
func (db *DB) ChannelEvents() *ChannelEventStore { return &ChannelEventStore{db: db} }

type channelEventRow struct {
	ID              int64 `gorm:"primaryKey;autoIncrement:false"`
	ChannelID       int64
	EventID         string
	BotID           int64
	EndUser         string
	ConversationKey string
	Text            string
	NotText         bool
	Reply           string
	Status          string
	ChatID          int64
	ConversationID  int64
	Answer          string
	Attempts        int
	Handle          string
	PartsSent       int
	Error           string
	LatencyMS       int64 `gorm:"column:latency_ms"`
	TurnAttempts    int
	NextAttemptAt   *time.Time
	Apology         bool
	CreatedAt       time.Time
	UpdatedAt       time.Time
}

func (channelEventRow) TableName() string { return "channel_events" }

type channelConversationRow struct {
	ChannelID      int64  `gorm:"primaryKey;autoIncrement:false"`
	Key            string `gorm:"primaryKey;column:conversation_key"`
	ConversationID int64
	CreatedAt      time.Time
}

func (channelConversationRow) TableName() string { return "channel_conversations" }

func eventToRow(d *channel.Delivery) *channelEventRow {
	return &channelEventRow{ID: d.ID, ChannelID: d.ChannelID, EventID: d.EventID, BotID: d.BotID, EndUser: d.EndUser,
		ConversationKey: d.ConversationKey, Text: d.Text, NotText: d.NotText, Reply: string(d.Reply), Status: string(d.Status),
		ChatID: d.ChatID, ConversationID: d.ConversationID, Answer: d.Answer, Attempts: d.Attempts, Handle: string(d.Handle), PartsSent: d.PartsSent,
		Error: d.Error, LatencyMS: d.LatencyMS, TurnAttempts: d.TurnAttempts, NextAttemptAt: dbTimePtr(d.NextAttemptAt), Apology: d.Apology,
		CreatedAt: d.CreatedAt, UpdatedAt: d.UpdatedAt}
}

func eventFromRow(r *channelEventRow) *channel.Delivery {
	return &channel.Delivery{ID: r.ID, ChannelID: r.ChannelID, EventID: r.EventID, BotID: r.BotID, EndUser: r.EndUser,
		ConversationKey: r.ConversationKey, Text: r.Text, NotText: r.NotText, Reply: []byte(r.Reply), Status: channel.DeliveryStatus(r.Status),
		ChatID: r.ChatID, ConversationID: r.ConversationID, Answer: r.Answer, Attempts: r.Attempts, Handle: handleBytes(r.Handle), PartsSent: r.PartsSent,
		Error: r.Error, LatencyMS: r.LatencyMS, TurnAttempts: r.TurnAttempts, NextAttemptAt: utcPtr(r.NextAttemptAt), Apology: r.Apology,
		CreatedAt: r.CreatedAt.UTC(), UpdatedAt: r.UpdatedAt.UTC()}
}

// handleBytes is a stored message handle; "" is none (nil).
func handleBytes(s string) []byte {
	if s == "" {
		return nil
	}
	return []byte(s)
}

// RecordEvent stores d unless the channel has an event of its EventID;
// then it returns the stored one and false. errs.ErrNotFound: the channel
// is gone.
func (s *ChannelEventStore) RecordEvent(ctx context.Context, d *channel.Delivery) (*channel.Delivery, bool, error) {
	if d.ID == 0 {
		d.ID = s.db.ids.Next()
	}
	now := s.db.timestamp()
	d.CreatedAt, d.UpdatedAt = now, now
	err := s.db.gorm.WithContext(ctx).Create(eventToRow(d)).Error
	switch {
	case err == nil:
		return d, true, nil
	case isMissingParent(err):
		return nil, false, channelNotFound(d.ChannelID)
	case !isDuplicate(err):
		return nil, false, fmt.Errorf("sqlstore: record channel event: %w", err)
	}
	var row channelEventRow
	if err := s.db.gorm.WithContext(ctx).Where("channel_id = ? AND event_id = ?", d.ChannelID, d.EventID).Take(&row).Error; err != nil {
		return nil, false, fmt.Errorf("sqlstore: read the stored channel event: %w", err)
	}
	return eventFromRow(&row), false, nil
}

func eventNotFound(id int64) error { return errs.NotFound("channel event", strconv.FormatInt(id, 10)) }

// GetEvent returns an event by id, or errs.ErrNotFound.
func (s *ChannelEventStore) GetEvent(ctx context.Context, id int64) (*channel.Delivery, error) {
	var row channelEventRow
	if err := s.db.gorm.WithContext(ctx).Where("id = ?", id).Take(&row).Error; err != nil {
		if isNoRow(err) {
			return nil, eventNotFound(id)
		}
		return nil, fmt.Errorf("sqlstore: get channel event: %w", err)
	}
	return eventFromRow(&row), nil
}

// UpdateEvent runs fn on the event under a row lock and saves every field
// but ID, ChannelID, EventID and CreatedAt; fn's error is returned as it
// is, with nothing written.
func (s *ChannelEventStore) UpdateEvent(ctx context.Context, id int64, fn func(*channel.Delivery) error) (*channel.Delivery, error) {
	row, err := updateLocked(ctx, s.db, "update channel event", func() error { return eventNotFound(id) },
		func(r *channelEventRow) error {
			d := eventFromRow(r)
			if err := fn(d); err != nil {
				return err
			}
			d.ID, d.ChannelID, d.EventID, d.CreatedAt = r.ID, r.ChannelID, r.EventID, r.CreatedAt
			d.UpdatedAt = s.db.timestamp()
			*r = *eventToRow(d)
			return nil
		}, "id = ?", id)
	if err != nil {
		return nil, err
	}
	return eventFromRow(row), nil
}

// ListEvents returns a channel's events newest first.
func (s *ChannelEventStore) ListEvents(ctx context.Context, channelID, before int64, limit int) ([]channel.Delivery, error) {
	q := s.db.gorm.WithContext(ctx).Where("channel_id = ?", channelID)
	if before > 0 {
		q = q.Where("id < ?", before)
	}
	var rows []channelEventRow
	if err := q.Order("id DESC").Limit(limit).Find(&rows).Error; err != nil {
		return nil, fmt.Errorf("sqlstore: list channel events: %w", err)
	}
	out := make([]channel.Delivery, len(rows))
	for i := range rows {
		out[i] = *eventFromRow(&rows[i])
	}
	return out, nil
}

// Conversation returns the conversation key maps to, 0 when none.
func (s *ChannelEventStore) Conversation(ctx context.Context, channelID int64, key string) (int64, error) {
	var rows []channelConversationRow
	err := s.db.gorm.WithContext(ctx).Where("channel_id = ? AND conversation_key = ?", channelID, key).Limit(1).Find(&rows).Error
	if err != nil {
		return 0, fmt.Errorf("sqlstore: channel conversation: %w", err)
	}
	if len(rows) == 0 {
		return 0, nil
	}
	return rows[0].ConversationID, nil
}

// BindConversation maps key to conversationID unless another process
// mapped it first, and returns the mapped conversation.
func (s *ChannelEventStore) BindConversation(ctx context.Context, channelID int64, key string, conversationID int64) (int64, error) {
	row := channelConversationRow{ChannelID: channelID, Key: key, ConversationID: conversationID, CreatedAt: s.db.timestamp()}
	err := s.db.gorm.WithContext(ctx).Clauses(clause.OnConflict{DoNothing: true}).Create(&row).Error
	if err != nil {
		if isMissingParent(err) {
			return 0, channelNotFound(channelID)
		}
		return 0, fmt.Errorf("sqlstore: bind channel conversation: %w", err)
	}
	return s.Conversation(ctx, channelID, key)
}

// RebindConversation maps key to to where it maps to from.
func (s *ChannelEventStore) RebindConversation(ctx context.Context, channelID int64, key string, from, to int64) (int64, error) {
	err := s.db.gorm.WithContext(ctx).Model(&channelConversationRow{}).
		Where("channel_id = ? AND conversation_key = ? AND conversation_id = ?", channelID, key, from).
		Update("conversation_id", to).Error
	if err != nil {
		return 0, fmt.Errorf("sqlstore: rebind channel conversation: %w", err)
	}
	return s.Conversation(ctx, channelID, key)
}

type overviewRow struct {
	ID           int64
	BotID        int64
	WorkspaceID  int64
	Kind         string
	Name         string
	Status       string
	StatusDetail string
	CreatedAt    time.Time
	UpdatedAt    time.Time
	Events       int64
	Failures     int64
}

// Overviews lists every channel with counts of its events and failures.
func (s *ChannelEventStore) Overviews(ctx context.Context) ([]channel.Overview, error) {
	var rows []overviewRow
	err := s.db.gorm.WithContext(ctx).Table("channels AS c").
		Select("c.id, c.bot_id, c.workspace_id, c.kind, c.name, c.status, c.status_detail, c.created_at, c.updated_at, "+
			"(SELECT COUNT(*) FROM channel_events e WHERE e.channel_id = c.id) AS events, "+
			"(SELECT COUNT(*) FROM channel_events e WHERE e.channel_id = c.id AND (e.status = 'failed' OR e.apology = ?)) AS failures", true).
		Order("c.created_at DESC, c.id DESC").Scan(&rows).Error
	if err != nil {
		return nil, fmt.Errorf("sqlstore: channel overviews: %w", err)
	}
	out := make([]channel.Overview, len(rows))
	for i, r := range rows {
		out[i] = channel.Overview{Events: r.Events, Failures: r.Failures, Channel: channel.Channel{
			ID: r.ID, BotID: r.BotID, WorkspaceID: r.WorkspaceID, Kind: channel.Kind(r.Kind), Name: r.Name,
			Status: channel.Status(r.Status), StatusDetail: r.StatusDetail, CreatedAt: r.CreatedAt.UTC(), UpdatedAt: r.UpdatedAt.UTC()}}
	}
	return out, nil
}
