package sqlstore

import (
	"context"
	"fmt"
	"strconv"
	"time"

	"gorm.io/gorm"

	"github.com/pergola-ai/pergola/domain/conversation"
	"github.com/pergola-ai/pergola/domain/errs"
	"github.com/pergola-ai/pergola/domain/identity"
)

// ConversationStore keeps conversations in the conversations table. Every
// write names the workspace it acts in.
type ConversationStore struct{ db *DB }

var _ conversation.Store = (*ConversationStore)(nil)

// Conversations returns the store of conversations.
func (db *DB) Conversations() *ConversationStore { return &ConversationStore{db: db} }

type conversationRow struct {
	ID          int64 `gorm:"primaryKey;autoIncrement:false"`
	WorkspaceID int64
	BotID       int64
	CreatorID   int64
	ConnectorID string
	Name        string
	Meta        string // JSON object
	SectionID   int64
	// ParentConversationID links a sub-agent's conversation to its
	// caller's (migration 26).
	ParentConversationID int64
	ActiveBotID          int64 // migration 25
	CreatedAt            time.Time
	UpdatedAt            time.Time
}

func (conversationRow) TableName() string { return "conversations" }

func conversationToRow(c *conversation.Conversation) (*conversationRow, error) {
	meta, err := metaDataJSON(c.MetaData)
	if err != nil {
		return nil, err
	}
	return &conversationRow{
		ID: c.ID, WorkspaceID: c.WorkspaceID, BotID: c.BotID, CreatorID: c.CreatorID, ConnectorID: c.ConnectorID,
		Name: c.Name, Meta: meta, SectionID: c.SectionID, ParentConversationID: c.ParentID, ActiveBotID: c.ActiveBotID,
		CreatedAt: dbTime(c.CreatedAt), UpdatedAt: dbTime(c.UpdatedAt),
	}, nil
}

func conversationFromRow(r *conversationRow) (*conversation.Conversation, error) {
	meta, err := metaDataFromJSON(r.Meta)
	if err != nil {
		return nil, fmt.Errorf("sqlstore: conversation %d meta: %w", r.ID, err)
	}
	return &conversation.Conversation{
		ID: r.ID, WorkspaceID: r.WorkspaceID, BotID: r.BotID, CreatorID: r.CreatorID, ConnectorID: r.ConnectorID,
		Name: r.Name, MetaData: meta, SectionID: r.SectionID, ParentID: r.ParentConversationID, ActiveBotID: r.ActiveBotID,
		CreatedAt: r.CreatedAt.UTC(), UpdatedAt: r.UpdatedAt.UTC(),
	}, nil
}

func conversationNotFound(id int64) error {
	return errs.NotFound("conversation", strconv.FormatInt(id, 10))
}

// CreateConversation stores c, assigning its ID when zero, a fresh id as
// its first section and its timestamps. It returns errs.ErrConflict when
// the ID is taken.
func (s *ConversationStore) CreateConversation(ctx context.Context, c *conversation.Conversation) error {
	row, err := conversationToRow(c)
	if err != nil {
		return fmt.Errorf("sqlstore: create conversation: %w", err)
	}
	if row.ID == 0 {
		row.ID = s.db.ids.Next()
	}
	row.SectionID = s.db.ids.Next()
	row.CreatedAt = s.db.timestamp()
	row.UpdatedAt = row.CreatedAt
	err = s.db.gorm.WithContext(ctx).Create(row).Error
	if isDuplicate(err) {
		return errs.Conflict("conversation %d already exists", row.ID)
	}
	if err != nil {
		return fmt.Errorf("sqlstore: create conversation: %w", err)
	}
	c.ID, c.SectionID, c.CreatedAt, c.UpdatedAt = row.ID, row.SectionID, row.CreatedAt, row.UpdatedAt
	return nil
}

// GetConversation returns the conversation with id, or errs.ErrNotFound.
func (s *ConversationStore) GetConversation(ctx context.Context, id int64) (*conversation.Conversation, error) {
	var row conversationRow
	if err := s.db.gorm.WithContext(ctx).Where("id = ?", id).Take(&row).Error; err != nil {
		if isNoRow(err) {
			return nil, conversationNotFound(id)
		}
		return nil, fmt.Errorf("sqlstore: get conversation: %w", err)
	}
	return conversationFromRow(&row)
}

// ListConversations returns one page of the workspace's conversations,
// newest first, narrowed by f (a zero BotID or an empty ConnectorID does
// not narrow), and whether more follow. A page Size of zero lists all.
func (s *ConversationStore) ListConversations(ctx context.Context, workspaceID int64, f conversation.Filter, p identity.Page) ([]conversation.Conversation, bool, error) {
	q := s.db.gorm.WithContext(ctx).Where("workspace_id = ?", workspaceID)
	if f.BotID != 0 {
		q = q.Where("bot_id = ?", f.BotID)
	}
	if f.ConnectorID != "" {
		q = q.Where("connector_id = ?", f.ConnectorID)
	}
	q = q.Order("id DESC")
	if p.Size > 0 {
		q = q.Offset(p.Offset()).Limit(p.Size + 1) // one more tells whether more follow
	}
	var rows []conversationRow
	if err := q.Find(&rows).Error; err != nil {
		return nil, false, fmt.Errorf("sqlstore: list conversations: %w", err)
	}
	more := p.Size > 0 && len(rows) > p.Size
	if more {
		rows = rows[:p.Size]
	}
	out := make([]conversation.Conversation, len(rows))
	for i := range rows {
		c, err := conversationFromRow(&rows[i])
		if err != nil {
			return nil, false, err
		}
		out[i] = *c
	}
	return out, more, nil
}

// UpdateConversation runs fn on the conversation inside a transaction,
// with its row locked, and saves the result; ID, WorkspaceID and CreatedAt
// are kept, UpdatedAt is set. It returns errs.ErrNotFound when the
// workspace has no such conversation and fn's error unchanged, writing
// nothing, when fn fails.
func (s *ConversationStore) UpdateConversation(ctx context.Context, workspaceID, id int64, fn func(*conversation.Conversation) error) (*conversation.Conversation, error) {
	row, err := updateLocked(ctx, s.db, "update conversation", func() error { return conversationNotFound(id) },
		func(r *conversationRow) error {
			c, err := conversationFromRow(r)
			if err != nil {
				return err
			}
			if err := fn(c); err != nil {
				return err
			}
			c.ID, c.WorkspaceID, c.CreatedAt, c.UpdatedAt = r.ID, r.WorkspaceID, r.CreatedAt, s.db.timestamp()
			next, err := conversationToRow(c)
			if err != nil {
				return fmt.Errorf("sqlstore: update conversation %d: %w", id, err)
			}
			*r = *next
			return nil
		}, "workspace_id = ? AND id = ?", workspaceID, id)
	if err != nil {
		return nil, err
	}
	return conversationFromRow(row)
}

// DeleteConversation removes the conversation with its messages and chats
// in one transaction. It returns errs.ErrNotFound when the workspace has
// no such conversation.
func (s *ConversationStore) DeleteConversation(ctx context.Context, workspaceID, id int64) error {
	err := s.db.gorm.WithContext(ctx).Transaction(func(tx *gorm.DB) error {
		res := tx.Where("workspace_id = ? AND id = ?", workspaceID, id).Delete(&conversationRow{})
		if res.Error != nil {
			return res.Error
		}
		if res.RowsAffected == 0 {
			return conversationNotFound(id)
		}
		if err := tx.Where("conversation_id = ?", id).Delete(&messageRow{}).Error; err != nil {
			return err
		}
		return tx.Where("conversation_id = ?", id).Delete(&chatRow{}).Error
	})
	if err != nil && !isDomain(err) {
		return fmt.Errorf("sqlstore: delete conversation: %w", err)
	}
	return err
}

// NewSection gives the conversation a fresh id as its current section and
// returns it; earlier messages keep theirs. It returns errs.ErrNotFound
// when the workspace has no such conversation.
func (s *ConversationStore) NewSection(ctx context.Context, workspaceID, id int64) (int64, error) {
	row, err := updateLocked(ctx, s.db, "new section", func() error { return conversationNotFound(id) },
		func(r *conversationRow) error {
			r.SectionID = s.db.ids.Next()
			r.UpdatedAt = s.db.timestamp()
			return nil
		}, "workspace_id = ? AND id = ?", workspaceID, id)
	if err != nil {
		return 0, err
	}
	return row.SectionID, nil
}
