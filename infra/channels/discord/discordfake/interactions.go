package discordfake

import (
	"bytes"
	"context"
	"crypto/ed25519"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strconv"
	"time"
)

// Command is a slash command (/ask question:…) one user sends in a
// guild channel.
type Command struct {
	ID        string // the interaction id
	ChannelID string
	UserID    string
	Question  string
}

// Interaction returns the body Discord posts for c, and issues its
// interaction token, which the webhook calls then accept.
func (s *Server) Interaction(c Command) (body []byte, token string) {
	s.mu.Lock()
	s.seq++
	token = fmt.Sprintf("aW50ZXJhY3Rpb246%s:%d", c.ID, s.seq)
	s.tokens[token] = true
	s.mu.Unlock()
	body, _ = json.Marshal(map[string]any{
		"type": 2, "id": c.ID, "application_id": s.app.ApplicationID, "token": token, "version": 1,
		"guild_id": "900000000000000001", "channel_id": c.ChannelID,
		"channel": map[string]any{"id": c.ChannelID, "type": 0},
		"member":  map[string]any{"user": map[string]any{"id": c.UserID, "username": "ann"}, "roles": []string{}},
		"data": map[string]any{"id": "910000000000000001", "name": "ask", "type": 1,
			"options": []map[string]any{{"name": "question", "type": 3, "value": c.Question}}},
	})
	return body, token
}

// Ping is the body of the PING Discord sends to check an endpoint.
func (s *Server) Ping() []byte {
	body, _ := json.Marshal(map[string]any{"type": 1, "id": "920000000000000001", "application_id": s.app.ApplicationID,
		"token": "ping-token", "version": 1})
	return body
}

// Sign returns X-Signature-Ed25519 for body sent at ts (unix seconds):
// the hex Ed25519 signature of ts followed by body under key.
func Sign(key ed25519.PrivateKey, ts int64, body []byte) string {
	msg := append([]byte(strconv.FormatInt(ts, 10)), body...)
	return hex.EncodeToString(ed25519.Sign(key, msg))
}

// Headers are the signature headers of body sent at t with the
// application's key.
func (s *Server) Headers(body []byte, at time.Time) map[string]string {
	return map[string]string{"X-Signature-Timestamp": strconv.FormatInt(at.Unix(), 10),
		"X-Signature-Ed25519": Sign(s.priv, at.Unix(), body)}
}

// Send posts body to url signed now, as Discord does, and returns the
// answer's status and body.
func (s *Server) Send(ctx context.Context, client *http.Client, url string, body []byte) (int, []byte, error) {
	return Post(ctx, client, url, body, s.Headers(body, time.Now()))
}

// Post posts body to url with headers and returns the answer's status
// and body.
func Post(ctx context.Context, client *http.Client, url string, body []byte, headers map[string]string) (int, []byte, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, url, bytes.NewReader(body))
	if err != nil {
		return 0, nil, err
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("User-Agent", "Discord-Interactions/1.0 (+https://discord.com)")
	for k, v := range headers {
		req.Header.Set(k, v)
	}
	resp, err := client.Do(req)
	if err != nil {
		return 0, nil, err
	}
	defer resp.Body.Close()
	out, err := io.ReadAll(io.LimitReader(resp.Body, 1<<20))
	return resp.StatusCode, out, err
}
