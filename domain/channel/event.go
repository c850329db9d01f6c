package channel

import (
	"context"
	"time"
)

// DeliveryStatus is how far an inbound event has come.
type DeliveryStatus string

// The statuses of an inbound event: stored, answered by the bot, the
// answer delivered to the platform, or failed (the error says where).
const (
	DeliveryReceived  DeliveryStatus = "received"
	DeliveryAnswered  DeliveryStatus = "answered"
	DeliveryDelivered DeliveryStatus = "delivered"
	DeliveryFailed    DeliveryStatus = "failed"
)

// Delivery is one inbound event of a channel and what became of it: the
// end user's message, the chat that answered it and the outbound send.
type Delivery struct {
	ID              int64
	ChannelID       int64
	BotID           int64
	EventID         string // the platform's id; unique per channel
	EndUser         string // "{kind}:{platform user id}"
	ConversationKey string
	Text            string
	NotText         bool
	Reply           []byte // the adapter's reply address, JSON
	Status          DeliveryStatus
	ChatID          int64
	ConversationID  int64
	Answer          string
	Attempts        int // outbound sends tried
	Error           string
	LatencyMS       int64 // from receipt to delivery (or failure)
	CreatedAt       time.Time
	UpdatedAt       time.Time
	// Handle is the platform's handle of the answer's first message
	// (JSON, the kind's own terms: chat and message id, channel and ts …)
	// once it was sent, by streaming or by the first send; nil before.
	// A streamed answer's later edits and final text go to that message.
	Handle []byte
	// PartsSent counts the messages of the answer delivered so far; a
	// retried delivery resumes after them instead of sending them again.
	PartsSent int
	// TurnAttempts counts the chat turns tried for the event: a turn that
	// failed while the model was unavailable is tried again, a few times
	// while the event is young.
	TurnAttempts int
	// NextAttemptAt is when the next try of the turn or of the send is
	// due; nil when none is planned.
	NextAttemptAt *time.Time
	// Apology marks an answer that is the short apology the end user
	// reads because the bot could not answer; Error says why.
	Apology bool
}

// Done reports whether nothing more will happen to the event.
func (d *Delivery) Done() bool {
	return d.Status == DeliveryDelivered || d.Status == DeliveryFailed
}

// Overview is a channel as the admins' view lists it, with counts of its
// events.
type Overview struct {
	Channel  Channel // settings left empty
	Events   int64
	Failures int64
}

// EventStore keeps inbound events, their deliveries and the conversation
// each platform conversation maps to.
type EventStore interface {
	// RecordEvent stores d, assigning its ID and timestamps. When the
	// channel already has an event of d.EventID it stores nothing and
	// returns the stored one with created false.
	RecordEvent(ctx context.Context, d *Delivery) (stored *Delivery, created bool, err error)
	// GetEvent returns an event by id, or errs.ErrNotFound.
	GetEvent(ctx context.Context, id int64) (*Delivery, error)
	// UpdateEvent runs fn on the event inside a transaction and saves it.
	UpdateEvent(ctx context.Context, id int64, fn func(*Delivery) error) (*Delivery, error)
	// ListEvents returns a channel's events newest first, those with ids
	// below before when it is not 0, at most limit.
	ListEvents(ctx context.Context, channelID, before int64, limit int) ([]Delivery, error)
	// Conversation returns the conversation a platform conversation key
	// maps to, 0 when none yet.
	Conversation(ctx context.Context, channelID int64, key string) (int64, error)
	// BindConversation maps key to conversationID unless it is mapped
	// already; it returns the conversation the key maps to after that.
	BindConversation(ctx context.Context, channelID int64, key string, conversationID int64) (int64, error)
	// RebindConversation maps key to to when it maps to from (that
	// conversation was deleted); it returns the conversation the key maps
	// to after that.
	RebindConversation(ctx context.Context, channelID int64, key string, from, to int64) (int64, error)
	// Overviews lists every channel with counts of its events, newest
	// channel first.
	Overviews(ctx context.Context) ([]Overview, error)
}
