package sqlstore

import (
	"context"
	"fmt"
	"gorm.io/gorm"
	"strconv"
	"time"

	"github.com/pergola-ai/pergola/domain/conversation"
	"github.com/pergola-ai/pergola/domain/errs"
)

// ChatStore keeps chats, the runs of bots over conversations, in the chats
// table. Every query names the conversation of the chat. A store made by
// WithInstance records which process runs each chat (chats_recovery.go).
type ChatStore struct {
	db       *DB
	instance string
}

var _ conversation.ChatStore = (*ChatStore)(nil)

// Chats returns the store of chats.
func (db *DB) Chats() *ChatStore { return &ChatStore{db: db} }

type chatRow struct {
	ID             int64 `gorm:"primaryKey;autoIncrement:false"`
	WorkspaceID    int64
	ConversationID int64
	SectionID      int64
	BotID          int64
	BotVersion     int64
	UserID         string
	ConnectorID    string
	Status         string
	InputTokens    int64
	OutputTokens   int64
	LastError      *string // JSON chatErrorDoc
	RequiredAction *string // JSON requiredActionDoc
	Meta           string  // JSON object
	State          []byte
	Instance       string // the process instance that put it in progress
	CreatedAt      time.Time
	CompletedAt    *time.Time
	FailedAt       *time.Time
}

func (chatRow) TableName() string { return "chats" }

// chatErrorDoc is how a ChatError is stored as JSON.
type chatErrorDoc struct {
	Code int    `json:"code"`
	Msg  string `json:"msg"`
}

// requiredActionDoc is how a RequiredAction is stored as JSON.
type requiredActionDoc struct {
	ToolCalls []toolCallDoc `json:"tool_calls"`
}

type toolCallDoc struct {
	ID        string `json:"id"`
	Name      string `json:"name"`
	Arguments string `json:"arguments"`
}

func chatToRow(c *conversation.Chat) (*chatRow, error) {
	meta, err := metaDataJSON(c.MetaData)
	if err != nil {
		return nil, err
	}
	var errDoc *chatErrorDoc
	if c.LastError != nil {
		errDoc = &chatErrorDoc{Code: c.LastError.Code, Msg: c.LastError.Msg}
	}
	lastError, err := optionalJSON(errDoc)
	if err != nil {
		return nil, err
	}
	required, err := optionalJSON(requiredActionToDoc(c.RequiredAction))
	if err != nil {
		return nil, err
	}
	return &chatRow{
		ID: c.ID, WorkspaceID: c.WorkspaceID, ConversationID: c.ConversationID, SectionID: c.SectionID,
		BotID: c.BotID, BotVersion: c.BotVersion, UserID: c.UserID, ConnectorID: c.ConnectorID,
		Status: string(c.Status), InputTokens: int64(c.Usage.InputTokens), OutputTokens: int64(c.Usage.OutputTokens),
		LastError: lastError, RequiredAction: required, Meta: meta, State: c.State,
		CreatedAt: dbTime(c.CreatedAt), CompletedAt: dbTimePtr(c.CompletedAt), FailedAt: dbTimePtr(c.FailedAt),
	}, nil
}

func chatFromRow(r *chatRow) (*conversation.Chat, error) {
	meta, err := metaDataFromJSON(r.Meta)
	if err != nil {
		return nil, fmt.Errorf("sqlstore: chat %d meta: %w", r.ID, err)
	}
	errDoc, err := fromOptionalJSON[chatErrorDoc](r.LastError)
	if err != nil {
		return nil, fmt.Errorf("sqlstore: chat %d last_error: %w", r.ID, err)
	}
	required, err := fromOptionalJSON[requiredActionDoc](r.RequiredAction)
	if err != nil {
		return nil, fmt.Errorf("sqlstore: chat %d required_action: %w", r.ID, err)
	}
	c := &conversation.Chat{
		ID: r.ID, WorkspaceID: r.WorkspaceID, ConversationID: r.ConversationID, SectionID: r.SectionID,
		BotID: r.BotID, BotVersion: r.BotVersion, UserID: r.UserID, ConnectorID: r.ConnectorID,
		Status:         conversation.ChatStatus(r.Status),
		Usage:          conversation.Usage{InputTokens: int(r.InputTokens), OutputTokens: int(r.OutputTokens)},
		RequiredAction: requiredActionFromDoc(required), MetaData: meta, State: r.State,
		CreatedAt: r.CreatedAt.UTC(), CompletedAt: utcPtr(r.CompletedAt), FailedAt: utcPtr(r.FailedAt),
	}
	if errDoc != nil {
		c.LastError = &conversation.ChatError{Code: errDoc.Code, Msg: errDoc.Msg}
	}
	return c, nil
}

func requiredActionToDoc(a *conversation.RequiredAction) *requiredActionDoc {
	if a == nil {
		return nil
	}
	doc := &requiredActionDoc{ToolCalls: make([]toolCallDoc, len(a.ToolCalls))}
	for i, tc := range a.ToolCalls {
		doc.ToolCalls[i] = toolCallDoc{ID: tc.ID, Name: tc.Name, Arguments: tc.Arguments}
	}
	return doc
}

func requiredActionFromDoc(doc *requiredActionDoc) *conversation.RequiredAction {
	if doc == nil {
		return nil
	}
	a := &conversation.RequiredAction{}
	for _, tc := range doc.ToolCalls {
		a.ToolCalls = append(a.ToolCalls, conversation.ToolCall{ID: tc.ID, Name: tc.Name, Arguments: tc.Arguments})
	}
	return a
}

func chatNotFound(id int64) error { return errs.NotFound("chat", strconv.FormatInt(id, 10)) }

// CreateChat stores c, assigning its ID when zero and its CreatedAt. It
// returns errs.ErrConflict when the ID is taken.
func (s *ChatStore) CreateChat(ctx context.Context, c *conversation.Chat) error {
	row, err := chatToRow(c)
	if err != nil {
		return fmt.Errorf("sqlstore: create chat: %w", err)
	}
	if row.ID == 0 {
		row.ID = s.db.ids.Next()
	}
	row.CreatedAt = s.db.timestamp()
	row.Instance = s.instanceAfter("", "", row.Status)
	err = s.db.gorm.WithContext(ctx).Create(row).Error
	if isDuplicate(err) {
		return errs.Conflict("chat %d already exists", row.ID)
	}
	if err != nil {
		return fmt.Errorf("sqlstore: create chat: %w", err)
	}
	c.ID, c.CreatedAt = row.ID, row.CreatedAt
	c.CompletedAt, c.FailedAt = row.CompletedAt, row.FailedAt
	return nil
}

// GetChat returns a chat of the conversation, or errs.ErrNotFound.
func (s *ChatStore) GetChat(ctx context.Context, conversationID, id int64) (*conversation.Chat, error) {
	var row chatRow
	err := s.db.gorm.WithContext(ctx).Where("conversation_id = ? AND id = ?", conversationID, id).Take(&row).Error
	if isNoRow(err) {
		return nil, chatNotFound(id)
	}
	if err != nil {
		return nil, fmt.Errorf("sqlstore: get chat: %w", err)
	}
	return chatFromRow(&row)
}

// LatestChat returns the conversation's most recent chat, or
// errs.ErrNotFound when it has none.
func (s *ChatStore) LatestChat(ctx context.Context, conversationID int64) (*conversation.Chat, error) {
	var row chatRow
	err := s.db.gorm.WithContext(ctx).Where("conversation_id = ?", conversationID).Order("id DESC").Take(&row).Error
	if isNoRow(err) {
		return nil, errs.NotFound("chat of conversation", strconv.FormatInt(conversationID, 10))
	}
	if err != nil {
		return nil, fmt.Errorf("sqlstore: latest chat: %w", err)
	}
	return chatFromRow(&row)
}

// UpdateChat runs fn on the chat inside a transaction that holds its row
// (SELECT ... FOR UPDATE on MySQL, the write lock on SQLite) and saves the
// result; ID, WorkspaceID, ConversationID and CreatedAt are kept. Two
// concurrent calls take turns, so the second sees what the first wrote.
// It returns errs.ErrNotFound for a chat the conversation does not hold
// and fn's error unchanged, writing nothing, when fn fails.
func (s *ChatStore) UpdateChat(ctx context.Context, conversationID, id int64, fn func(*conversation.Chat) error) (*conversation.Chat, error) {
	return s.update(ctx, "update chat", nil, conversationID, id, fn)
}

// FinishChat stores the messages of a turn and runs fn on the chat in one
// transaction holding the chat's row: a turn ends with one commit, and
// either both are written or neither.
func (s *ChatStore) FinishChat(ctx context.Context, conversationID, id int64, msgs []*conversation.Message, fn func(*conversation.Chat) error) (*conversation.Chat, error) {
	rows, err := s.db.messageRows(msgs)
	if err != nil {
		return nil, fmt.Errorf("sqlstore: finish chat: %w", err)
	}
	c, err := s.update(ctx, "finish chat", func(tx *gorm.DB) error { return insertMessages(tx, rows) }, conversationID, id, fn)
	if isDuplicate(err) {
		return nil, errs.Conflict("chat %d: its messages are already stored", id)
	}
	if err != nil {
		return nil, err
	}
	applyMessageRows(msgs, rows)
	return c, nil
}

// StartChat stores a new chat with its first messages in one transaction.
func (s *ChatStore) StartChat(ctx context.Context, c *conversation.Chat, msgs []*conversation.Message) error {
	row, err := chatToRow(c)
	if err != nil {
		return fmt.Errorf("sqlstore: start chat: %w", err)
	}
	if row.ID == 0 {
		row.ID = s.db.ids.Next()
	}
	row.CreatedAt = s.db.timestamp()
	row.Instance = s.instanceAfter("", "", row.Status)
	rows, err := s.db.messageRows(msgs)
	if err != nil {
		return fmt.Errorf("sqlstore: start chat: %w", err)
	}
	err = s.db.gorm.WithContext(ctx).Transaction(func(tx *gorm.DB) error {
		if err := tx.Create(row).Error; err != nil {
			return err
		}
		return insertMessages(tx, rows)
	})
	if isDuplicate(err) {
		return errs.Conflict("chat %d or one of its messages already exists", row.ID)
	}
	if err != nil {
		return fmt.Errorf("sqlstore: start chat: %w", err)
	}
	c.ID, c.CreatedAt = row.ID, row.CreatedAt
	applyMessageRows(msgs, rows)
	return nil
}

func (s *ChatStore) update(ctx context.Context, op string, before func(*gorm.DB) error, conversationID, id int64, fn func(*conversation.Chat) error) (*conversation.Chat, error) {
	row, err := updateLockedAfter(ctx, s.db, op, before, func() error { return chatNotFound(id) },
		func(r *chatRow) error {
			c, err := chatFromRow(r)
			if err != nil {
				return err
			}
			if err := fn(c); err != nil {
				return err
			}
			c.ID, c.WorkspaceID, c.ConversationID, c.CreatedAt = r.ID, r.WorkspaceID, r.ConversationID, r.CreatedAt
			next, err := chatToRow(c)
			if err != nil {
				return fmt.Errorf("sqlstore: update chat %d: %w", id, err)
			}
			next.Instance = s.instanceAfter(r.Status, r.Instance, next.Status)
			*r = *next
			return nil
		}, "conversation_id = ? AND id = ?", conversationID, id)
	if err != nil {
		return nil, err
	}
	return chatFromRow(row)
}
