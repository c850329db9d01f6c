package feishufake

import (
	"bytes"
	"context"
	"crypto/aes"
	"crypto/cipher"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strconv"
	"time"
)

// Subscription is how the app's events are sent: its verification
// token and, when set, its encrypt key.
type Subscription struct {
	VerificationToken string
	EncryptKey        string
}

// Message is a person's message to put in an im.message.receive_v1
// event. Mentions maps keys in Text (@_user_1) to open_ids.
type Message struct {
	EventID, SenderOpenID, MessageID, ChatID, ChatType, Text string
	MessageType, SenderType                                  string // "text", "user" when empty
	Mentions                                                 map[string]string
}

// MessageEvent is the schema 2.0 event of m, as the platform sends it
// before encryption.
func (sub Subscription) MessageEvent(appID string, m Message) []byte {
	if m.MessageType == "" {
		m.MessageType = "text"
	}
	if m.SenderType == "" {
		m.SenderType = "user"
	}
	content, _ := json.Marshal(map[string]string{"text": m.Text})
	mentions := []map[string]any{}
	for key, openID := range m.Mentions {
		mentions = append(mentions, map[string]any{"key": key, "id": map[string]string{"open_id": openID, "union_id": "on_" + openID}, "name": "Name of " + openID, "tenant_key": "tk1"})
	}
	body, _ := json.Marshal(map[string]any{"schema": "2.0",
		"header": map[string]any{"event_id": m.EventID, "event_type": "im.message.receive_v1", "token": sub.VerificationToken,
			"app_id": appID, "tenant_key": "tk1", "create_time": strconv.FormatInt(time.Now().UnixMilli(), 10)},
		"event": map[string]any{
			"sender":  map[string]any{"sender_id": map[string]string{"open_id": m.SenderOpenID, "union_id": "on_" + m.SenderOpenID}, "sender_type": m.SenderType, "tenant_key": "tk1"},
			"message": map[string]any{"message_id": m.MessageID, "chat_id": m.ChatID, "chat_type": m.ChatType, "message_type": m.MessageType, "content": string(content), "mentions": mentions, "create_time": "1700000000000"}}})
	return body
}

// Challenge is the url_verification request of the developer console.
func (sub Subscription) Challenge(challenge string) []byte {
	body, _ := json.Marshal(map[string]string{"type": "url_verification", "challenge": challenge, "token": sub.VerificationToken})
	return body
}

// Encrypt returns {"encrypt":…} of plain under key: AES-256-CBC with
// SHA-256(key), a random IV before the cipher text, PKCS#7 padding.
func Encrypt(key string, plain []byte) []byte {
	k := sha256.Sum256([]byte(key))
	block, _ := aes.NewCipher(k[:])
	n := aes.BlockSize - len(plain)%aes.BlockSize
	padded := append(append([]byte(nil), plain...), bytes.Repeat([]byte{byte(n)}, n)...)
	out := make([]byte, aes.BlockSize+len(padded))
	_, _ = rand.Read(out[:aes.BlockSize])
	cipher.NewCBCEncrypter(block, out[:aes.BlockSize]).CryptBlocks(out[aes.BlockSize:], padded)
	body, _ := json.Marshal(map[string]string{"encrypt": base64.StdEncoding.EncodeToString(out)})
	return body
}

// Sign returns X-Lark-Signature: hex SHA-256 of timestamp + nonce + key + body.
func Sign(timestamp, nonce, key string, body []byte) string {
	sum := sha256.Sum256(append([]byte(timestamp+nonce+key), body...))
	return hex.EncodeToString(sum[:])
}

// Wire is event as it goes over the wire now: encrypted and signed when
// the subscription has an encrypt key (with signKey, so a test can
// forge), plain otherwise; the body and headers.
func (sub Subscription) Wire(event []byte, signKey string) ([]byte, map[string]string) {
	h := map[string]string{"Content-Type": "application/json"}
	if sub.EncryptKey == "" {
		return event, h
	}
	body := Encrypt(sub.EncryptKey, event)
	ts := strconv.FormatInt(time.Now().Unix(), 10)
	nonce := fmt.Sprintf("%d", time.Now().UnixNano())
	h["X-Lark-Request-Timestamp"], h["X-Lark-Request-Nonce"] = ts, nonce
	h["X-Lark-Signature"] = Sign(ts, nonce, signKey, body)
	return body, h
}

// Push posts event to url as the platform does (see Wire) and returns
// the answer's status and body.
func (sub Subscription) Push(ctx context.Context, client *http.Client, url string, event []byte) (int, []byte, error) {
	body, headers := sub.Wire(event, sub.EncryptKey)
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, url, bytes.NewReader(body))
	if err != nil {
		return 0, nil, err
	}
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
