package sqlstore

import (
	"context"
	"fmt"
	"strings"

	"github.com/pergola-ai/pergola/domain/conversation"
)

// conversationTurnRow is one row of the read a chat turn starts with on
// MySQL: the conversation, and one message of its history. (The
// conversation is a named field: gorm leaves an anonymous embedded row
// unset when scanning a join.)
type conversationTurnRow struct {
	Conversation conversationRow `gorm:"embedded"`
	Message      messageRow      `gorm:"embedded;embeddedPrefix:m_"`
}

// What the turn reads: every column of the conversation, and of the
// history what the model is given (the rest of each message is left zero;
// decoding times and JSON per row was a good part of the read on SQLite).
// A test keeps the conversation's list in step with its row.
var (
	turnConversationColumns = []string{"id", "workspace_id", "bot_id", "creator_id", "connector_id", "name", "meta",
		"section_id", "parent_conversation_id", "active_bot_id", "created_at", "updated_at"}
	turnMessageColumns  = []string{"id", "role", "type", "content", "content_type"}
	conversationTurnSQL = conversationTurnQuery()
)

// conversationTurnQuery joins the conversation to the newest messages of
// its current section that make up the history. The conversation is read
// by its primary key, so MariaDB and MySQL take it as a constant and walk
// the messages backwards on an index up to the limit, with no sort and no
// temporary table (which a LEFT JOIN or a derived table of the messages
// cost them, more than the round trip saved). A section without history
// therefore gives no row.
func conversationTurnQuery() string {
	cols := make([]string, 0, len(turnConversationColumns)+len(turnMessageColumns))
	for _, c := range turnConversationColumns {
		cols = append(cols, "c."+c)
	}
	for _, c := range turnMessageColumns {
		cols = append(cols, "m."+c+" AS m_"+c)
	}
	return "SELECT " + strings.Join(cols, ", ") + " FROM conversations c" +
		" JOIN messages m ON m.conversation_id = c.id AND m.section_id = c.section_id" +
		" WHERE c.id = ? AND m.hidden = ? AND m.type IN ? ORDER BY m.id DESC LIMIT ?"
}

// ConversationTurn returns the conversation with id and the history of its
// current section as History returns it (rounds rounds, oldest first), each
// message with only its id, role, type, content and content type: what a
// chat turn reads before it runs. On MySQL that is one query, one
// round trip; a second is needed only for a section without history yet,
// or whose last rounds hold more answers than usual. On SQLite, where
// there is no round trip to save, the conversation and the history are
// two plain statements, cheaper than the join's repeated columns. It
// returns errs.ErrNotFound for an unknown conversation.
func (s *ConversationStore) ConversationTurn(ctx context.Context, id int64, rounds int) (*conversation.Conversation, []conversation.Message, error) {
	if rounds <= 0 || s.db.dialect != DialectMySQL {
		return s.conversationThenHistory(ctx, id, rounds)
	}
	window := rounds*historyAnswersPerRound + 1
	var rows []conversationTurnRow
	err := s.db.gorm.WithContext(ctx).Raw(conversationTurnSQL, id, false, historyTypes, window).Scan(&rows).Error
	if err != nil {
		return nil, nil, fmt.Errorf("sqlstore: conversation turn: %w", err)
	}
	if len(rows) == 0 { // unknown, or no history in its section yet
		return s.conversationThenHistory(ctx, id, 0)
	}
	c, err := conversationFromRow(&rows[0].Conversation)
	if err != nil {
		return nil, nil, err
	}
	msgs := make([]messageRow, len(rows))
	for i := range rows {
		msgs[i] = rows[i].Message
	}
	n, ok := roundsLength(msgs, rounds, len(rows) < window)
	if !ok {
		history, err := s.db.Messages().history(ctx, id, c.SectionID, rounds, turnMessageColumns)
		return c, history, err
	}
	history, err := messagesFromRows(reverseRows(msgs[:n]))
	return c, history, err
}

// conversationThenHistory is ConversationTurn in two statements.
func (s *ConversationStore) conversationThenHistory(ctx context.Context, id int64, rounds int) (*conversation.Conversation, []conversation.Message, error) {
	c, err := s.GetConversation(ctx, id)
	if err != nil {
		return nil, nil, err
	}
	history, err := s.db.Messages().history(ctx, id, c.SectionID, rounds, turnMessageColumns)
	if err != nil {
		return nil, nil, err
	}
	return c, history, nil
}
