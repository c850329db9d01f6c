package sqlstore

import (
	"context"
	"fmt"
	"slices"

	"gorm.io/gorm"

	"github.com/pergola-ai/pergola/domain/conversation"
)

// Message page sizes: what an unset limit gives, and the most one page holds.
const (
	messagePageDefault = 20
	messagePageMax     = 50
)

// ListMessages returns one page of the conversation's visible messages
// (not Hidden), narrowed to q.ChatID when set, in q.Order (newest first
// unless OrderAsc), and whether more exist beyond the page in the
// direction of travel.
//
// Cursors are message ids, and need not exist any more. AfterID moves
// forward: the page holds the messages that follow AfterID in the list's
// order (older ones when descending, newer ones when ascending), so a
// client that keeps sending the last id of each page sees every message
// once and ends. BeforeID alone moves backward: the page holds the
// messages nearest before BeforeID in the list's order, still listed in
// that order, and "more" means more further back. With both, the page
// moves forward from AfterID and stops at BeforeID. q.Limit defaults to 20
// and is capped at 50.
func (s *MessageStore) ListMessages(ctx context.Context, conversationID int64, q conversation.MessageQuery) ([]conversation.Message, bool, error) {
	limit := q.Limit
	if limit <= 0 {
		limit = messagePageDefault
	}
	limit = min(limit, messagePageMax)
	asc := q.Order == conversation.OrderAsc
	backward := q.BeforeID != 0 && q.AfterID == 0

	db := s.db.gorm.WithContext(ctx).Where("conversation_id = ? AND hidden = ?", conversationID, false)
	if q.ChatID != 0 {
		db = db.Where("chat_id = ?", q.ChatID)
	}
	if q.AfterID != 0 {
		db = db.Where(cursorCond(asc, true), q.AfterID)
	}
	if q.BeforeID != 0 {
		db = db.Where(cursorCond(asc, false), q.BeforeID)
	}
	var rows []messageRow
	if err := db.Order(idOrder(asc != backward)).Limit(limit + 1).Find(&rows).Error; err != nil {
		return nil, false, fmt.Errorf("sqlstore: list messages: %w", err)
	}
	more := len(rows) > limit
	if more {
		rows = rows[:limit]
	}
	if backward {
		slices.Reverse(rows) // read nearest-first going back; shown in the list's order
	}
	out, err := messagesFromRows(rows)
	return out, more, err
}

// cursorCond is the condition on id for a cursor: what comes after it
// (forward) or before it in a list sorted ascending or descending.
func cursorCond(asc, forward bool) string {
	if asc == forward {
		return "id > ?"
	}
	return "id < ?"
}

func idOrder(asc bool) string {
	if asc {
		return "id ASC"
	}
	return "id DESC"
}

// historyTypes are the message types that make up a conversation's
// history as the model sees it.
var historyTypes = []string{conversation.TypeQuestion, conversation.TypeAnswer}

// History returns the visible questions and answers of a section, oldest
// first: those from the rounds-th last question on, where a round starts
// at a question. When the section holds no more than rounds questions,
// the whole section is returned, answers before its first question
// included (a prologue, say). rounds <= 0 returns nothing.
func (s *MessageStore) History(ctx context.Context, conversationID, sectionID int64, rounds int) ([]conversation.Message, error) {
	return s.history(ctx, conversationID, sectionID, rounds, nil)
}

// history is History reading only cols of each message (nil: all).
func (s *MessageStore) history(ctx context.Context, conversationID, sectionID int64, rounds int, cols []string) ([]conversation.Message, error) {
	if rounds <= 0 {
		return nil, nil
	}
	section := func() *gorm.DB {
		return s.db.gorm.WithContext(ctx).Model(&messageRow{}).
			Where("conversation_id = ? AND section_id = ? AND hidden = ? AND type IN ?", conversationID, sectionID, false, historyTypes)
	}
	read := func(q *gorm.DB, rows *[]messageRow) error {
		if cols != nil {
			q = q.Select(cols)
		}
		return q.Find(rows).Error
	}
	// One read covers the usual case: a few answers per question. Only
	// when the window is full before `rounds` questions were seen does a
	// second read find where the rounds start.
	window := rounds*historyAnswersPerRound + 1
	var rows []messageRow
	if err := read(section().Order("id DESC").Limit(window), &rows); err != nil {
		return nil, fmt.Errorf("sqlstore: history: %w", err)
	}
	if n, ok := roundsLength(rows, rounds, len(rows) < window); ok {
		return messagesFromRows(reverseRows(rows[:n]))
	}
	var starts []int64
	err := section().Where("type = ?", conversation.TypeQuestion).
		Order("id DESC").Offset(rounds-1).Limit(2).Pluck("id", &starts).Error
	if err != nil {
		return nil, fmt.Errorf("sqlstore: history: %w", err)
	}
	q := section()
	if len(starts) == 2 { // more questions than rounds: start at the rounds-th last
		q = q.Where("id >= ?", starts[0])
	}
	rows = rows[:0]
	if err := read(q.Order("id"), &rows); err != nil {
		return nil, fmt.Errorf("sqlstore: history: %w", err)
	}
	return messagesFromRows(rows)
}

// historyAnswersPerRound sizes History's single read.
const historyAnswersPerRound = 3

// roundsLength finds, in rows newest first, how many rows make up the
// last rounds rounds (a round starts at a question). When the section has
// no older question, the whole section counts, a leading prologue too; ok
// is false when rows end before that can be told (not the whole section).
func roundsLength(rows []messageRow, rounds int, wholeSection bool) (int, bool) {
	seen, cut := 0, 0
	for i, r := range rows {
		if r.Type != conversation.TypeQuestion {
			continue
		}
		seen++
		switch seen {
		case rounds:
			cut = i + 1
		case rounds + 1:
			return cut, true
		}
	}
	return len(rows), wholeSection
}

func reverseRows(rows []messageRow) []messageRow {
	for i, j := 0, len(rows)-1; i < j; i, j = i+1, j-1 {
		rows[i], rows[j] = rows[j], rows[i]
	}
	return rows
}
