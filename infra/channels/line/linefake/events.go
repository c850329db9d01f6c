package linefake

import (
	"bytes"
	"context"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"time"
)

// Message is a message of a person to the bot, for a webhook event.
type Message struct {
	EventID string // webhookEventId
	UserID  string
	GroupID string // "" in a 1:1 chat
	Type    string // "text" unless set
	Text    string
	Mention bool // the text starts with a mention of the bot
}

// Event returns the webhook event of m with a fresh reply token that
// the fake accepts once.
func (s *Server) Event(m Message) map[string]any {
	s.mu.Lock()
	s.seq++
	token := fmt.Sprintf("rt%08d", s.seq)
	src := map[string]any{"type": "user", "userId": m.UserID}
	s.tokens[token] = m.UserID
	if m.GroupID != "" {
		src = map[string]any{"type": "group", "groupId": m.GroupID, "userId": m.UserID}
		s.tokens[token] = m.GroupID
	}
	s.mu.Unlock()
	return map[string]any{"type": "message", "mode": "active", "timestamp": time.Now().UnixMilli(),
		"webhookEventId": m.EventID, "deliveryContext": map[string]any{"isRedelivery": false},
		"source": src, "replyToken": token, "message": message(m)}
}

func message(m Message) map[string]any {
	if m.Type != "" && m.Type != "text" {
		return map[string]any{"type": m.Type, "id": "m-" + m.EventID, "quoteToken": "q"}
	}
	msg := map[string]any{"type": "text", "id": "m-" + m.EventID, "quoteToken": "q", "text": m.Text}
	if m.Mention {
		msg["text"] = "@Pergola " + m.Text
		msg["mention"] = map[string]any{"mentionees": []map[string]any{{"index": 0, "length": 8, "type": "user", "isSelf": true}}}
	}
	return msg
}

// Body is a webhook request carrying events, as LINE sends it.
func (s *Server) Body(events ...map[string]any) []byte {
	if events == nil {
		events = []map[string]any{}
	}
	body, _ := json.Marshal(map[string]any{"destination": s.bot.UserID, "events": events})
	return body
}

// Signature is X-Line-Signature of body under secret: the base64 of its
// HMAC-SHA256.
func Signature(secret string, body []byte) string {
	m := hmac.New(sha256.New, []byte(secret))
	_, _ = m.Write(body)
	return base64.StdEncoding.EncodeToString(m.Sum(nil))
}

// Send posts body to url with signature (Signature of the bot's secret
// when ""), as LINE does, and returns the answer's status and body.
func (s *Server) Send(ctx context.Context, client *http.Client, url string, body []byte, signature string) (int, []byte, error) {
	if signature == "" {
		signature = Signature(s.bot.Secret, body)
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, url, bytes.NewReader(body))
	if err != nil {
		return 0, nil, err
	}
	req.Header.Set("Content-Type", "application/json; charset=utf-8")
	req.Header.Set("X-Line-Signature", signature)
	resp, err := client.Do(req)
	if err != nil {
		return 0, nil, err
	}
	defer resp.Body.Close()
	out, err := io.ReadAll(io.LimitReader(resp.Body, 1<<20))
	return resp.StatusCode, out, err
}
