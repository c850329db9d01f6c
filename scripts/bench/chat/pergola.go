package main

import (
	"bufio"
	"encoding/json"
	"fmt"
	"net/url"
	"strings"
	"time"

	"github.com/pergola-ai/pergola/scripts/bench/internal/benchkit"
)

// turn is what one measured chat turn took. first is the first answer
// delta of a stream, or the answer to the create call of a polled chat.
type turn struct {
	first, total time.Duration
	polls        int
}

// conv is one worker's conversation with one bot: every turn after the
// first continues it, as a user's client does.
type conv struct {
	bot, id string
}

func (c *conv) path() string {
	if c.id == "" {
		return "/v3/chat"
	}
	return "/v3/chat?conversation_id=" + url.QueryEscape(c.id)
}

func chatBody(bot, user, text string, stream bool) map[string]any {
	return map[string]any{"bot_id": bot, "user_id": user, "stream": stream,
		"additional_messages": []map[string]any{{"role": "user", "content": text, "content_type": "text"}}}
}

// streamTurn runs one streamed /v3/chat and checks that it ends with
// chat.completed then done, and that the answer starts with want.
func streamTurn(cl *benchkit.Client, c *conv, user, text, want string) (turn, error) {
	req, err := cl.Request("POST", c.path(), chatBody(c.bot, user, text, true))
	if err != nil {
		return turn{}, err
	}
	t0 := time.Now()
	resp, err := cl.HTTP.Do(req)
	if err != nil {
		return turn{}, err
	}
	defer resp.Body.Close()
	if resp.StatusCode != 200 || !strings.HasPrefix(resp.Header.Get("Content-Type"), "text/event-stream") {
		return turn{}, fmt.Errorf("stream: status %d, %s", resp.StatusCode, resp.Header.Get("Content-Type"))
	}
	var t turn
	s := sseReader{sc: bufio.NewScanner(resp.Body)}
	s.sc.Buffer(make([]byte, 64<<10), 1<<20)
	answer, events, err := s.read(func() {
		if t.first == 0 {
			t.first = time.Since(t0)
		}
	}, c)
	t.total = time.Since(t0)
	if err != nil {
		return t, err
	}
	return t, checkEnd(events, answer, want)
}

func checkEnd(events []string, answer, want string) error {
	n := len(events)
	if n < 2 || events[n-2] != "conversation.chat.completed" || events[n-1] != "done" {
		return fmt.Errorf("stream ended with %v, want chat.completed then done", events[max(0, n-3):])
	}
	if !strings.HasPrefix(answer, want) {
		return fmt.Errorf("streamed answer %q, want it to start with %q", answer, want)
	}
	return nil
}

type sseReader struct {
	sc *bufio.Scanner
}

// read reads the whole stream: the answer's deltas joined, the event
// names in order. onDelta runs at each answer delta; the conversation id
// of chat.created is kept in c.
func (s sseReader) read(onDelta func(), c *conv) (string, []string, error) {
	var answer strings.Builder
	var events []string
	name := ""
	for s.sc.Scan() {
		line := s.sc.Text()
		if v, ok := strings.CutPrefix(line, "event:"); ok {
			name = strings.TrimSpace(v)
			events = append(events, name)
			continue
		}
		data, ok := strings.CutPrefix(line, "data:")
		if !ok {
			continue
		}
		if err := s.onData(name, []byte(strings.TrimSpace(data)), &answer, onDelta, c); err != nil {
			return answer.String(), events, err
		}
	}
	return answer.String(), events, s.sc.Err()
}

func (s sseReader) onData(name string, data []byte, answer *strings.Builder, onDelta func(), c *conv) error {
	switch name {
	case "conversation.message.delta":
		var m struct {
			Type    string `json:"type"`
			Content string `json:"content"`
		}
		if err := json.Unmarshal(data, &m); err != nil {
			return fmt.Errorf("delta %s: %w", data, err)
		}
		if m.Type == "answer" && m.Content != "" {
			onDelta()
			answer.WriteString(m.Content)
		}
	case "conversation.chat.created":
		var ch struct {
			ConversationID string `json:"conversation_id"`
		}
		_ = json.Unmarshal(data, &ch)
		c.id = ch.ConversationID
	case "conversation.chat.failed", "error":
		return fmt.Errorf("%s: %.300s", name, data)
	}
	return nil
}
