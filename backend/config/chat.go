package config

import (
	"fmt"
	"strconv"
	"strings"
)

// Chat bounds the text a chat sends to a model, on every surface: one
// message, and the earlier messages sent with a turn together (trimmed,
// oldest first, past the limit).
type Chat struct {
	MaxMessageChars int `yaml:"max_message_chars"`
	MaxHistoryChars int `yaml:"max_history_chars"`
}

// DefaultChat returns the default limits: 32,000 characters a message,
// 128,000 of history.
func DefaultChat() Chat { return Chat{MaxMessageChars: 32_000, MaxHistoryChars: 128_000} }

func applyChatEnv(c *Chat, env Lookup) error {
	for key, dst := range map[string]*int{"PERGOLA_MAX_MESSAGE_CHARS": &c.MaxMessageChars,
		"PERGOLA_MAX_HISTORY_CHARS": &c.MaxHistoryChars} {
		if v, ok := env(key); ok {
			n, err := strconv.Atoi(strings.TrimSpace(v))
			if err != nil {
				return fmt.Errorf("%s: must be an integer, got %q", key, v)
			}
			*dst = n
		}
	}
	return nil
}

// maxChatChars bounds both limits: past it a message would not fit the
// request body limit anyway.
const maxChatChars = 64 << 20

func (c Chat) validate() error {
	if c.MaxMessageChars < 1 || c.MaxMessageChars > maxChatChars {
		return fmt.Errorf("PERGOLA_MAX_MESSAGE_CHARS: must be between 1 and %d characters, got %d", maxChatChars, c.MaxMessageChars)
	}
	if c.MaxHistoryChars < 1 || c.MaxHistoryChars > maxChatChars {
		return fmt.Errorf("PERGOLA_MAX_HISTORY_CHARS: must be between 1 and %d characters, got %d", maxChatChars, c.MaxHistoryChars)
	}
	return nil
}
