package sqlstore

import (
	"time"

	"gorm.io/gorm"
)

// Migration 11: the inbound events of channels and their deliveries, and
// which conversation of the bot each platform conversation is. A retried
// event is stored once: (channel_id, event_id) is unique.

// Snapshots of migration 11. Frozen.

type m0011Event struct {
	ID              int64         `gorm:"primaryKey;autoIncrement:false"`
	ChannelID       int64         `gorm:"not null;uniqueIndex:ux_channel_events_event,priority:1"`
	EventID         endUserKey    `gorm:"not null;uniqueIndex:ux_channel_events_event,priority:2"`
	BotID           int64         `gorm:"not null"`
	EndUser         endUserKey    `gorm:"not null"`
	ConversationKey endUserKey    `gorm:"not null"`
	Text            string        `gorm:"type:text;not null"`
	NotText         bool          `gorm:"not null"`
	Reply           string        `gorm:"type:text;not null"`
	Status          string        `gorm:"size:16;not null"`
	ChatID          int64         `gorm:"not null"`
	ConversationID  int64         `gorm:"not null"`
	Answer          string        `gorm:"type:text;not null"`
	Attempts        int           `gorm:"not null"`
	Error           string        `gorm:"type:text;not null"`
	LatencyMS       int64         `gorm:"not null"`
	CreatedAt       time.Time     `gorm:"not null;precision:3"`
	UpdatedAt       time.Time     `gorm:"not null;precision:3"`
	Channel         *m0010Channel `gorm:"foreignKey:ChannelID;constraint:OnDelete:CASCADE"`
}

func (m0011Event) TableName() string { return "channel_events" }

type m0011Conversation struct {
	ChannelID      int64         `gorm:"primaryKey;autoIncrement:false"`
	Key            endUserKey    `gorm:"primaryKey;column:conversation_key"`
	ConversationID int64         `gorm:"not null"`
	CreatedAt      time.Time     `gorm:"not null;precision:3"`
	Channel        *m0010Channel `gorm:"foreignKey:ChannelID;constraint:OnDelete:CASCADE"`
}

func (m0011Conversation) TableName() string { return "channel_conversations" }

func up0011(tx *gorm.DB) error {
	return createTables(tx, &m0011Event{}, &m0011Conversation{})
}
