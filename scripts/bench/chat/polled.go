package main

import (
	"fmt"
	"net/url"
	"strings"
	"time"

	"github.com/pergola-ai/pergola/scripts/bench/internal/benchkit"
)

type chatRef struct {
	ID             string `json:"id"`
	ConversationID string `json:"conversation_id"`
	Status         string `json:"status"`
}

// polledTurn runs a non-streamed /v3/chat as Coze's SDKs do
// (CreateAndPoll): create, retrieve until completed, then list the chat's
// messages; the answer must start with want. poll is the pause between
// retrieves (the SDK waits a second; a benchmark cannot).
func polledTurn(cl *benchkit.Client, c *conv, user, text, want string, poll time.Duration) (turn, error) {
	t0 := time.Now()
	env, err := cl.Call("POST", c.path(), chatBody(c.bot, user, text, false), 200)
	if err != nil {
		return turn{}, err
	}
	t := turn{first: time.Since(t0)}
	var ch chatRef
	if err := env.Into(&ch); err != nil {
		return t, err
	}
	c.id = ch.ConversationID
	q := "?conversation_id=" + url.QueryEscape(ch.ConversationID) + "&chat_id=" + url.QueryEscape(ch.ID)
	for ch.Status == "created" || ch.Status == "in_progress" {
		if t.polls > 0 {
			time.Sleep(poll)
		}
		t.polls++
		if env, err = cl.Call("GET", "/v3/chat/retrieve"+q, nil, 200); err != nil {
			return t, err
		}
		if err := env.Into(&ch); err != nil {
			return t, err
		}
	}
	if ch.Status != "completed" {
		return t, fmt.Errorf("polled chat ended %q, want completed", ch.Status)
	}
	answer, err := answerOf(cl, q)
	t.total = time.Since(t0)
	if err == nil && !strings.HasPrefix(answer, want) {
		err = fmt.Errorf("polled answer %q, want it to start with %q", answer, want)
	}
	return t, err
}

func answerOf(cl *benchkit.Client, q string) (string, error) {
	env, err := cl.Call("GET", "/v3/chat/message/list"+q, nil, 200)
	if err != nil {
		return "", err
	}
	var msgs []struct {
		Type    string `json:"type"`
		Content string `json:"content"`
	}
	if err := env.Into(&msgs); err != nil {
		return "", err
	}
	for _, m := range msgs {
		if m.Type == "answer" {
			return m.Content, nil
		}
	}
	return "", fmt.Errorf("the chat's messages hold no answer: %s", env.Data)
}
