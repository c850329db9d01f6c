package main

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"net/url"
	"strings"
	"time"

	"github.com/pergola-ai/pergola/scripts/bench/internal/benchkit"
)

// streamed is what a streamed chat turn showed its client.
type streamed struct {
	answer   string
	conv     string
	recalled bool // a knowledge_recall verbose message came
	events   []string
}

// streamChat runs one streamed /v3/chat of the bot, continuing its
// conversation, reads the whole stream and returns it with the time the
// turn took. A stream that does not end with chat.completed then done is
// an error.
func streamChat(cl *benchkit.Client, bot *chatBot, question string) (streamed, time.Duration, error) {
	path := "/v3/chat"
	if bot.conv != "" {
		path += "?conversation_id=" + url.QueryEscape(bot.conv)
	}
	body := map[string]any{"bot_id": bot.id, "user_id": "bench", "stream": true,
		"additional_messages": []map[string]any{{"role": "user", "content": question, "content_type": "text"}}}
	req, err := cl.Request("POST", path, body)
	if err != nil {
		return streamed{}, 0, err
	}
	start := time.Now()
	resp, err := cl.HTTP.Do(req)
	if err != nil {
		return streamed{}, 0, err
	}
	defer resp.Body.Close()
	if resp.StatusCode != 200 {
		raw, _ := io.ReadAll(resp.Body)
		return streamed{}, 0, fmt.Errorf("status %d: %.300s", resp.StatusCode, raw)
	}
	st, err := readStream(resp.Body)
	took := time.Since(start)
	if err == nil {
		err = checkEnd(st.events)
	}
	if st.conv != "" {
		bot.conv = st.conv
	}
	return st, took, err
}

func checkEnd(events []string) error {
	n := len(events)
	if n < 2 || events[n-2] != "conversation.chat.completed" || events[n-1] != "done" {
		return fmt.Errorf("stream ended with %v, want chat.completed then done", events[max(0, n-3):])
	}
	return nil
}

// readStream reads server-sent events to the end.
func readStream(r io.Reader) (streamed, error) {
	var st streamed
	var answer strings.Builder
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 64<<10), 4<<20)
	name := ""
	for sc.Scan() {
		line := sc.Text()
		if v, ok := strings.CutPrefix(line, "event:"); ok {
			name = strings.TrimSpace(v)
			st.events = append(st.events, name)
			continue
		}
		if data, ok := strings.CutPrefix(line, "data:"); ok {
			if err := st.onData(name, []byte(strings.TrimSpace(data)), &answer); err != nil {
				return st, err
			}
		}
	}
	st.answer = answer.String()
	return st, sc.Err()
}

func (st *streamed) onData(name string, data []byte, answer *strings.Builder) error {
	var m struct {
		Type           string `json:"type"`
		Content        string `json:"content"`
		ConversationID string `json:"conversation_id"`
	}
	switch name {
	case "conversation.chat.failed", "error":
		return fmt.Errorf("%s: %.300s", name, data)
	case "conversation.chat.created", "conversation.message.delta", "conversation.message.completed":
		if err := json.Unmarshal(data, &m); err != nil {
			return fmt.Errorf("%s %.200s: %w", name, data, err)
		}
	}
	switch {
	case name == "conversation.chat.created":
		st.conv = m.ConversationID
	case name == "conversation.message.delta" && m.Type == "answer":
		answer.WriteString(m.Content)
	case name == "conversation.message.completed" && m.Type == "verbose":
		var v struct {
			MsgType string `json:"msg_type"`
		}
		st.recalled = st.recalled || (json.Unmarshal([]byte(m.Content), &v) == nil && v.MsgType == "knowledge_recall")
	}
	return nil
}
