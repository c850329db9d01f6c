package sqlstore

import (
	"context"
	"errors"
	"fmt"

	"gorm.io/gorm"

	"github.com/pergola-ai/pergola/domain/conversation"
	"github.com/pergola-ai/pergola/domain/errs"
)

// errChatMoved aborts EndTurn's transaction when the chat is no longer in
// progress, so that nothing of it is kept.
var errChatMoved = errors.New("the chat is no longer in progress")

// EndTurn stores the messages of a turn and the chat's outcome in one
// transaction, without reading the chat first: the runtime holds the chat
// since it put it in progress, so outcome is the chat as the turn leaves
// it. The update sets only the columns a turn changes (status, usage, last
// error, required action, state, completion times), by primary key, and
// only while the chat is still in progress. When it is not (canceled while
// it ran, or failed by crash recovery), the transaction rolls back and
// FinishChat runs fallback on the chat as stored instead, the messages
// included. outcome's status must be one a turn ends in, not in_progress.
// It returns the chat as stored; errs.ErrConflict when the messages are
// stored already, errs.ErrNotFound when the chat is gone.
func (s *ChatStore) EndTurn(ctx context.Context, outcome *conversation.Chat, msgs []*conversation.Message, fallback func(*conversation.Chat) error) (*conversation.Chat, error) {
	if outcome.Status == conversation.ChatInProgress {
		return nil, fmt.Errorf("sqlstore: end turn of chat %d: the outcome is still in progress", outcome.ID)
	}
	next, err := chatToRow(outcome)
	if err != nil {
		return nil, fmt.Errorf("sqlstore: end turn: %w", err)
	}
	rows, err := s.db.messageRows(msgs)
	if err != nil {
		return nil, fmt.Errorf("sqlstore: end turn: %w", err)
	}
	err = s.db.gorm.WithContext(ctx).Transaction(func(tx *gorm.DB) error {
		if err := insertMessages(tx, rows); err != nil {
			return err
		}
		return endChat(tx, next)
	})
	switch {
	case errors.Is(err, errChatMoved):
		return s.FinishChat(ctx, outcome.ConversationID, outcome.ID, msgs, fallback)
	case isDuplicate(err):
		return nil, errs.Conflict("chat %d: its messages are already stored", outcome.ID)
	case err != nil:
		return nil, fmt.Errorf("sqlstore: end turn: %w", err)
	}
	applyMessageRows(msgs, rows)
	return chatFromRow(next)
}

// endChat writes what a turn changes of a chat in progress, or fails with
// errChatMoved when the chat is not in progress (MySQL is opened to report
// matched rows, and the status changes anyway).
func endChat(tx *gorm.DB, r *chatRow) error {
	res := tx.Model(&chatRow{}).
		Where("conversation_id = ? AND id = ? AND status = ?", r.ConversationID, r.ID, string(conversation.ChatInProgress)).
		UpdateColumns(map[string]any{
			"status": r.Status, "input_tokens": r.InputTokens, "output_tokens": r.OutputTokens,
			"last_error": r.LastError, "required_action": r.RequiredAction, "state": r.State,
			"completed_at": r.CompletedAt, "failed_at": r.FailedAt,
		})
	if res.Error != nil {
		return res.Error
	}
	if res.RowsAffected == 0 {
		return errChatMoved
	}
	return nil
}
