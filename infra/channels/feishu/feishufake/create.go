package feishufake

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"slices"
)

// Post is one new message the send API accepted.
type Post struct {
	ID      string // the id the fake gave the message
	ChatID  string // the chat it was sent to
	MsgType string
	Text    string // the text of content {"text":…}
}

// Posts lists the new messages the send API accepted, in order.
func (s *Server) Posts() []Post {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]Post(nil), s.posts...)
}

// create answers POST /open-apis/im/v1/messages?receive_id_type=chat_id
// {receive_id, msg_type, content}: a new text message in a chat the
// app's bot is in. The fake knows chat ids only: another
// receive_id_type is refused as the platform refuses a bad one (code
// 99992402), a chat the bot is not in with code 230002.
func (s *Server) create(w http.ResponseWriter, r *http.Request, app App) {
	raw, _ := io.ReadAll(io.LimitReader(r.Body, 1<<20))
	var in struct {
		ReceiveID string `json:"receive_id"`
	}
	_ = json.Unmarshal(raw, &in)
	r.Body = io.NopCloser(bytes.NewReader(raw))
	text, content, ok := readText(r)
	switch {
	case r.URL.Query().Get("receive_id_type") != "chat_id":
		writeCode(w, http.StatusBadRequest, 99992402, "field validation failed: receive_id_type is required and the fake knows chat_id only")
		return
	case in.ReceiveID == "" || !ok:
		writeCode(w, http.StatusBadRequest, 230001, "Your request contains an invalid request parameter.")
		return
	case !slices.Contains(app.ChatIDs, in.ReceiveID):
		writeCode(w, http.StatusBadRequest, 230002, "The bot can not be outside the group.")
		return
	}
	s.mu.Lock()
	s.seq++
	post := Post{ID: fmt.Sprintf("om_post_%d", s.seq), ChatID: in.ReceiveID, MsgType: "text", Text: text}
	s.posts = append(s.posts, post)
	s.current[post.ID] = &sentText{text: text}
	s.mu.Unlock()
	writeJSON(w, http.StatusOK, map[string]any{"code": 0, "msg": "success", "data": map[string]any{
		"message_id": post.ID, "chat_id": post.ChatID, "msg_type": "text", "body": map[string]any{"content": content}}})
}
