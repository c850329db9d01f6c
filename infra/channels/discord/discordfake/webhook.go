package discordfake

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strconv"
	"strings"
	"unicode/utf8"
)

// webhook answers the interaction webhook calls: parts is
// [application_id, token] (a follow-up) or [application_id, token,
// "messages", "@original" or a follow-up's id] (an edit).
func (s *Server) webhook(w http.ResponseWriter, r *http.Request, parts []string) {
	edit := len(parts) == 4 && parts[2] == "messages" && r.Method == http.MethodPatch
	post := len(parts) == 2 && r.Method == http.MethodPost
	switch {
	case !edit && !post:
		writeError(w, http.StatusMethodNotAllowed, "405: Method Not Allowed", 0)
	case parts[0] != s.app.ApplicationID:
		writeError(w, http.StatusNotFound, "Unknown Webhook", 10015)
	case !s.issued(parts[1]):
		writeError(w, http.StatusUnauthorized, "Invalid Webhook Token", 50027)
	case edit && parts[3] != "@original" && !s.followUp(parts[1], parts[3]):
		writeError(w, http.StatusNotFound, "Unknown Message", 10008)
	case edit:
		s.message(w, r, Message{Token: parts[1], Edit: true, Target: parts[3]})
	default:
		s.message(w, r, Message{Token: parts[1]})
	}
}

// followUp reports whether id is a follow-up message of the token's
// interaction.
func (s *Server) followUp(token, id string) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, m := range s.messages {
		if m.Token == token && !m.Edit && m.ID == id {
			return true
		}
	}
	return false
}

func (s *Server) issued(token string) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.tokens[token]
}

// message accepts m, a new message or an edit, with the request's
// content and allowed_mentions.
func (s *Server) message(w http.ResponseWriter, r *http.Request, m Message) {
	var in struct {
		Content         string `json:"content"`
		AllowedMentions *struct {
			Parse []string `json:"parse"`
		} `json:"allowed_mentions"`
	}
	body, err := io.ReadAll(io.LimitReader(r.Body, 1<<20))
	if err != nil || json.Unmarshal(body, &in) != nil {
		writeError(w, http.StatusBadRequest, "400: Bad Request", 50109)
		return
	}
	if why := contentError(in.Content); why != nil {
		writeJSON(w, http.StatusBadRequest, why)
		return
	}
	m.Content = in.Content
	if in.AllowedMentions != nil {
		m.ParseMentions = append([]string{}, in.AllowedMentions.Parse...)
	}
	id := s.accept(m)
	writeJSON(w, http.StatusOK, map[string]any{"id": id, "type": 0, "content": in.Content,
		"channel_id": channelOr(m.ChannelID), "author": map[string]any{"id": s.app.BotUserID, "bot": true}, "webhook_id": s.app.ApplicationID})
}

// contentError is Discord's answer to content it refuses, or nil.
func contentError(content string) map[string]any {
	if strings.TrimSpace(content) == "" {
		return map[string]any{"message": "Cannot send an empty message", "code": 50006}
	}
	if utf8.RuneCountInString(content) > maxContent {
		return map[string]any{"message": "Invalid Form Body", "code": 50035, "errors": map[string]any{
			"content": map[string]any{"_errors": []map[string]any{{"code": "BASE_TYPE_MAX_LENGTH",
				"message": fmt.Sprintf("Must be %d or fewer in length.", maxContent)}}}}}
	}
	return nil
}

// accept records m and returns the id of the message it made or edited.
func (s *Server) accept(m Message) string {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.seq++
	m.ID = strconv.Itoa(1100000000000000000 + s.seq)
	if m.Edit && m.Target != "@original" { // an edit keeps the message's id
		m.ID = m.Target
	}
	s.messages = append(s.messages, m)
	return m.ID
}

// channelOr is the channel id an answer shows: the channel's, or "0"
// for an interaction's webhook in the fake.
func channelOr(id string) string {
	if id == "" {
		return "0"
	}
	return id
}

func writeError(w http.ResponseWriter, status int, message string, code int) {
	writeJSON(w, status, map[string]any{"message": message, "code": code})
}

func writeFailure(w http.ResponseWriter, f failure) {
	if f.status == http.StatusTooManyRequests {
		w.Header().Set("Retry-After", strconv.FormatFloat(f.retryAfter, 'f', -1, 64))
		w.Header().Set("X-RateLimit-Scope", "user")
		writeJSON(w, f.status, map[string]any{"message": "You are being rate limited.", "retry_after": f.retryAfter, "global": false})
		return
	}
	writeError(w, f.status, fmt.Sprintf("%d: %s", f.status, http.StatusText(f.status)), 0)
}

func writeJSON(w http.ResponseWriter, status int, body any) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	_ = json.NewEncoder(w).Encode(body)
}
