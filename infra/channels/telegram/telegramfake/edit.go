package telegramfake

import (
	"net/http"
	"strings"
)

// Edit is one editMessageText the fake accepted.
type Edit struct {
	ChatID    int64
	MessageID int64
	Text      string
	ParseMode string
}

// notModified is Telegram's refusal of an edit that changes nothing.
const notModified = "Bad Request: message is not modified: specified new message content and reply markup are exactly the same as a current content and reply markup of the message"

// Edits lists the edits accepted, in order.
func (s *Server) Edits() []Edit {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]Edit(nil), s.edits...)
}

// Message returns a message the fake accepted as it reads now, after
// its edits.
func (s *Server) Message(id int64) (Sent, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	m, ok := s.current[id]
	return m, ok
}

// editMessageText edits a message the bot sent, as Telegram does: the
// chat and message must name one, the text must parse and differ from
// what the message reads.
func (s *Server) editMessageText(w http.ResponseWriter, p params) {
	e := Edit{ChatID: p.int("chat_id"), MessageID: p.int("message_id"), Text: p.str("text"), ParseMode: p.str("parse_mode")}
	if why := checkText(e.Text, e.ParseMode); why != "" {
		writeError(w, http.StatusBadRequest, why, 0)
		return
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	m, ok := s.current[e.MessageID]
	switch {
	case !ok || m.ChatID != e.ChatID:
		writeError(w, http.StatusBadRequest, "Bad Request: message to edit not found", 0)
		return
	case m.Text == e.Text && strings.EqualFold(m.ParseMode, e.ParseMode):
		writeError(w, http.StatusBadRequest, notModified, 0)
		return
	}
	m.Text, m.ParseMode = e.Text, e.ParseMode
	s.current[e.MessageID] = m
	s.edits = append(s.edits, e)
	writeResult(w, map[string]any{"message_id": m.MessageID, "chat": map[string]any{"id": m.ChatID}, "text": m.Text,
		"edit_date": 1700000000})
}
