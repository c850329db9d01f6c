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
	// SubAgentDepth bounds how deep sub-agents call sub-agents
	// (PERGOLA_SUBAGENT_DEPTH); TurnModelCalls bounds the model calls of
	// one turn across the bot and all its sub-agents
	// (PERGOLA_TURN_MODEL_CALLS).
	SubAgentDepth  int `yaml:"subagent_depth"`
	TurnModelCalls int `yaml:"turn_model_calls"`
	// MaxHandoffs bounds the transfers of one turn from bot to bot; past
	// it the transfer tool tells the model to answer itself.
	MaxHandoffs int `yaml:"max_handoffs"`
}

// DefaultChat returns the default limits: 32,000 characters a message,
// 128,000 of history, sub-agents 3 deep, 50 model calls a turn, 3
// handoffs a turn.
func DefaultChat() Chat {
	return Chat{MaxMessageChars: 32_000, MaxHistoryChars: 128_000, SubAgentDepth: 3, TurnModelCalls: 50, MaxHandoffs: 3}
}

func applyChatEnv(c *Chat, env Lookup) error {
	for key, dst := range map[string]*int{"PERGOLA_MAX_MESSAGE_CHARS": &c.MaxMessageChars,
		"PERGOLA_MAX_HISTORY_CHARS": &c.MaxHistoryChars, "PERGOLA_SUBAGENT_DEPTH": &c.SubAgentDepth,
		"PERGOLA_TURN_MODEL_CALLS": &c.TurnModelCalls, "PERGOLA_MAX_HANDOFFS": &c.MaxHandoffs} {
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
	if c.SubAgentDepth < 1 || c.SubAgentDepth > 10 {
		return fmt.Errorf("PERGOLA_SUBAGENT_DEPTH: must be between 1 and 10 levels of sub-agents, got %d", c.SubAgentDepth)
	}
	if c.TurnModelCalls < 1 || c.TurnModelCalls > 1000 {
		return fmt.Errorf("PERGOLA_TURN_MODEL_CALLS: must be between 1 and 1000 model calls a turn, got %d", c.TurnModelCalls)
	}
	if c.MaxHandoffs < 1 || c.MaxHandoffs > 20 {
		return fmt.Errorf("PERGOLA_MAX_HANDOFFS: must be between 1 and 20 handoffs a turn, got %d", c.MaxHandoffs)
	}
	return nil
}
