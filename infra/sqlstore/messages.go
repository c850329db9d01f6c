package sqlstore

import (
	"context"
	"fmt"
	"strconv"
	"time"

	"gorm.io/gorm"

	"github.com/pergola-ai/pergola/domain/conversation"
	"github.com/pergola-ai/pergola/domain/errs"
)

// MessageStore keeps the messages of conversations in the messages table.
// Every query names the conversation it reads or writes.
type MessageStore struct{ db *DB }

var _ conversation.MessageStore = (*MessageStore)(nil)

// Messages returns the store of messages.
func (db *DB) Messages() *MessageStore { return &MessageStore{db: db} }

type messageRow struct {
	ID               int64 `gorm:"primaryKey;autoIncrement:false"`
	WorkspaceID      int64
	ConversationID   int64
	SectionID        int64
	BotID            int64
	ChatID           int64
	Role             string
	Type             string
	Content          string
	ContentType      string
	ReasoningContent string
	Meta             string // JSON object
	Hidden           bool
	Feedback         *string // JSON feedbackDoc, NULL when none
	CreatedAt        time.Time
	UpdatedAt        time.Time
}

func (messageRow) TableName() string { return "messages" }

// feedbackDoc is how a Feedback is stored as JSON.
type feedbackDoc struct {
	Type        string    `json:"type"`
	ReasonTypes []string  `json:"reason_types,omitempty"`
	Comment     string    `json:"comment,omitempty"`
	CreatedAt   time.Time `json:"created_at"`
}

func messageToRow(m *conversation.Message) (*messageRow, error) {
	meta, err := metaDataJSON(m.MetaData)
	if err != nil {
		return nil, err
	}
	var doc *feedbackDoc
	if f := m.Feedback; f != nil {
		doc = &feedbackDoc{Type: f.Type, ReasonTypes: f.ReasonTypes, Comment: f.Comment, CreatedAt: dbTime(f.CreatedAt)}
	}
	feedback, err := optionalJSON(doc)
	if err != nil {
		return nil, err
	}
	return &messageRow{
		ID: m.ID, WorkspaceID: m.WorkspaceID, ConversationID: m.ConversationID, SectionID: m.SectionID,
		BotID: m.BotID, ChatID: m.ChatID, Role: m.Role, Type: m.Type, Content: m.Content,
		ContentType: m.ContentType, ReasoningContent: m.ReasoningContent, Meta: meta, Hidden: m.Hidden,
		Feedback: feedback, CreatedAt: dbTime(m.CreatedAt), UpdatedAt: dbTime(m.UpdatedAt),
	}, nil
}

func messageFromRow(r *messageRow) (*conversation.Message, error) {
	meta, err := metaDataFromJSON(r.Meta)
	if err != nil {
		return nil, fmt.Errorf("sqlstore: message %d meta: %w", r.ID, err)
	}
	doc, err := fromOptionalJSON[feedbackDoc](r.Feedback)
	if err != nil {
		return nil, fmt.Errorf("sqlstore: message %d feedback: %w", r.ID, err)
	}
	m := &conversation.Message{
		ID: r.ID, WorkspaceID: r.WorkspaceID, ConversationID: r.ConversationID, SectionID: r.SectionID,
		BotID: r.BotID, ChatID: r.ChatID, Role: r.Role, Type: r.Type, Content: r.Content,
		ContentType: r.ContentType, ReasoningContent: r.ReasoningContent, MetaData: meta, Hidden: r.Hidden,
		CreatedAt: r.CreatedAt.UTC(), UpdatedAt: r.UpdatedAt.UTC(),
	}
	if doc != nil {
		m.Feedback = &conversation.Feedback{Type: doc.Type, ReasonTypes: doc.ReasonTypes, Comment: doc.Comment, CreatedAt: doc.CreatedAt.UTC()}
	}
	return m, nil
}

func messagesFromRows(rows []messageRow) ([]conversation.Message, error) {
	out := make([]conversation.Message, len(rows))
	for i := range rows {
		m, err := messageFromRow(&rows[i])
		if err != nil {
			return nil, err
		}
		out[i] = *m
	}
	return out, nil
}

// messageBatch bounds the rows of one INSERT, well under MySQL's limit of
// 65,535 placeholders a statement.
const messageBatch = 500

func messageNotFound(id int64) error { return errs.NotFound("message", strconv.FormatInt(id, 10)) }

// CreateMessages stores msgs in one transaction, in the order given. A
// zero ID is assigned from the id generator, so ids assigned in one call
// ascend strictly in that order and sort after every earlier message of
// this process; timestamps are set. It returns errs.ErrConflict when an
// ID is taken, writing none of them.
func (s *MessageStore) CreateMessages(ctx context.Context, msgs ...*conversation.Message) error {
	if len(msgs) == 0 {
		return nil
	}
	rows, err := s.db.messageRows(msgs)
	if err != nil {
		return fmt.Errorf("sqlstore: create messages: %w", err)
	}
	err = s.db.gorm.WithContext(ctx).Transaction(func(tx *gorm.DB) error { return insertMessages(tx, rows) })
	if isDuplicate(err) {
		return errs.Conflict("a message with one of these ids already exists")
	}
	if err != nil {
		return fmt.Errorf("sqlstore: create messages: %w", err)
	}
	applyMessageRows(msgs, rows)
	return nil
}

// messageRows converts messages for an insert: ids from the generator
// when zero, the same timestamp for all.
func (db *DB) messageRows(msgs []*conversation.Message) ([]*messageRow, error) {
	now := db.timestamp()
	rows := make([]*messageRow, len(msgs))
	for i, m := range msgs {
		row, err := messageToRow(m)
		if err != nil {
			return nil, fmt.Errorf("item %d: %w", i, err)
		}
		if row.ID == 0 {
			row.ID = db.ids.Next()
		}
		row.CreatedAt, row.UpdatedAt = now, now
		rows[i] = row
	}
	return rows, nil
}

func insertMessages(tx *gorm.DB, rows []*messageRow) error {
	if len(rows) == 0 {
		return nil
	}
	return tx.CreateInBatches(rows, messageBatch).Error
}

// applyMessageRows copies what the store assigned back to the messages.
func applyMessageRows(msgs []*conversation.Message, rows []*messageRow) {
	for i, m := range msgs {
		m.ID, m.CreatedAt, m.UpdatedAt = rows[i].ID, rows[i].CreatedAt, rows[i].UpdatedAt
	}
}

// GetMessage returns a message of the conversation, hidden or not, or
// errs.ErrNotFound.
func (s *MessageStore) GetMessage(ctx context.Context, conversationID, id int64) (*conversation.Message, error) {
	var row messageRow
	err := s.db.gorm.WithContext(ctx).Where("conversation_id = ? AND id = ?", conversationID, id).Take(&row).Error
	if isNoRow(err) {
		return nil, messageNotFound(id)
	}
	if err != nil {
		return nil, fmt.Errorf("sqlstore: get message: %w", err)
	}
	return messageFromRow(&row)
}

// ListChatMessages returns every message of one chat, hidden ones too,
// oldest first.
func (s *MessageStore) ListChatMessages(ctx context.Context, conversationID, chatID int64) ([]conversation.Message, error) {
	var rows []messageRow
	err := s.db.gorm.WithContext(ctx).Where("conversation_id = ? AND chat_id = ?", conversationID, chatID).
		Order("id").Find(&rows).Error
	if err != nil {
		return nil, fmt.Errorf("sqlstore: list chat messages: %w", err)
	}
	return messagesFromRows(rows)
}

// UpdateMessage runs fn on the message inside a transaction, with its row
// locked, and saves the result; ID, WorkspaceID, ConversationID and
// CreatedAt are kept, UpdatedAt is set. It returns errs.ErrNotFound for a
// message the conversation does not hold and fn's error unchanged, writing
// nothing, when fn fails.
func (s *MessageStore) UpdateMessage(ctx context.Context, conversationID, id int64, fn func(*conversation.Message) error) (*conversation.Message, error) {
	row, err := updateLocked(ctx, s.db, "update message", func() error { return messageNotFound(id) },
		func(r *messageRow) error {
			m, err := messageFromRow(r)
			if err != nil {
				return err
			}
			if err := fn(m); err != nil {
				return err
			}
			m.ID, m.WorkspaceID, m.ConversationID = r.ID, r.WorkspaceID, r.ConversationID
			m.CreatedAt, m.UpdatedAt = r.CreatedAt, s.db.timestamp()
			next, err := messageToRow(m)
			if err != nil {
				return fmt.Errorf("sqlstore: update message %d: %w", id, err)
			}
			*r = *next
			return nil
		}, "conversation_id = ? AND id = ?", conversationID, id)
	if err != nil {
		return nil, err
	}
	return messageFromRow(row)
}

// DeleteMessage removes a message of the conversation and returns it as it
// was, or errs.ErrNotFound.
func (s *MessageStore) DeleteMessage(ctx context.Context, conversationID, id int64) (*conversation.Message, error) {
	var row messageRow
	err := s.db.gorm.WithContext(ctx).Transaction(func(tx *gorm.DB) error {
		err := forUpdate(tx).Where("conversation_id = ? AND id = ?", conversationID, id).Take(&row).Error
		if isNoRow(err) {
			return messageNotFound(id)
		}
		if err != nil {
			return err
		}
		return tx.Where("conversation_id = ? AND id = ?", conversationID, id).Delete(&messageRow{}).Error
	})
	if isDomain(err) {
		return nil, err
	}
	if err != nil {
		return nil, fmt.Errorf("sqlstore: delete message: %w", err)
	}
	return messageFromRow(&row)
}
