package feishufake

import (
	"encoding/json"
	"io"
	"net/http"
	"strings"
)

// maxEdits is how many times the platform lets a message be edited.
const maxEdits = 20

// Edit is one edit of a sent message the fake accepted.
type Edit struct {
	MessageID string
	Text      string
}

// sentText is a message the bot sent, as it reads now.
type sentText struct {
	text  string
	edits int
}

// Edits lists the edits accepted, in order.
func (s *Server) Edits() []Edit {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]Edit(nil), s.edits...)
}

// Text returns what a message the bot sent reads now, after its edits.
func (s *Server) Text(messageID string) (string, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	m, ok := s.current[messageID]
	if !ok {
		return "", false
	}
	return m.text, true
}

// edit answers PUT /open-apis/im/v1/messages/{message_id}: only a text
// message the bot sent can be edited, at most 20 times. The platform
// documents the limit but not the code of its refusal; the fake answers
// it as an invalid request, 230001, with words saying why.
func (s *Server) edit(w http.ResponseWriter, r *http.Request) {
	id := strings.TrimPrefix(r.URL.Path, "/open-apis/im/v1/messages/")
	text, _, ok := readText(r)
	if !ok {
		writeCode(w, http.StatusBadRequest, 230001, "Your request contains an invalid request parameter.")
		return
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	m, known := s.current[id]
	switch {
	case !known:
		writeCode(w, http.StatusBadRequest, 230001, "Your request contains an invalid request parameter: message_id not found.")
		return
	case m.edits >= maxEdits:
		writeCode(w, http.StatusBadRequest, 230001, "Your request contains an invalid request parameter: the message was edited too many times.")
		return
	}
	m.text, m.edits = text, m.edits+1
	s.edits = append(s.edits, Edit{MessageID: id, Text: text})
	writeJSON(w, http.StatusOK, map[string]any{"code": 0, "msg": "success", "data": map[string]any{
		"message_id": id, "msg_type": "text", "body": map[string]any{"content": textContent(text)}}})
}

// readText reads a {"msg_type":"text","content":"{\"text\":…}"} body and
// returns the text and the content; false when it is not one with text.
func readText(r *http.Request) (text, content string, ok bool) {
	var in struct {
		MsgType string `json:"msg_type"`
		Content string `json:"content"`
	}
	var c struct {
		Text string `json:"text"`
	}
	if json.NewDecoder(io.LimitReader(r.Body, 1<<20)).Decode(&in) != nil || json.Unmarshal([]byte(in.Content), &c) != nil {
		return "", "", false
	}
	if in.MsgType != "text" || strings.TrimSpace(c.Text) == "" {
		return "", "", false
	}
	return c.Text, in.Content, true
}

func textContent(text string) string {
	b, _ := json.Marshal(map[string]string{"text": text})
	return string(b)
}
