package bot

import (
	"strconv"
	"unicode/utf8"

	"github.com/pergola-ai/pergola/domain/errs"
)

// MaxHandoffs bounds the handoff targets of one bot.
const MaxHandoffs = 16

// Handoff is another bot of the workspace this bot may hand its
// conversation to: the target answers the rest of the turn and the next
// turns of the conversation, until it hands the conversation back or on.
// The model gets one transfer tool per handoff.
type Handoff struct {
	BotID       int64
	Description string // when to transfer, for the model
	// Name is the target's name when the configuration was saved; the
	// transfer tool is named after it (stable across the target's renames
	// until this bot is saved again).
	Name string
}

// validateHandoffs checks the handoff list: ids set and distinct,
// descriptions bounded. Self and workspace checks need the bot's identity
// and the store: see ValidateHandoffTargets and the bot use cases.
func (c *Config) validateHandoffs() error {
	if len(c.Handoffs) > MaxHandoffs {
		return errs.Invalid("handoffs", "at most %d handoff targets, got %d", MaxHandoffs, len(c.Handoffs))
	}
	seen := map[int64]bool{}
	for i, h := range c.Handoffs {
		at := "handoffs[" + strconv.Itoa(i) + "]"
		if h.BotID <= 0 {
			return errs.Invalid(at+".bot_id", "is required")
		}
		if seen[h.BotID] {
			return errs.Invalid(at+".bot_id", "bot %d is listed twice", h.BotID)
		}
		seen[h.BotID] = true
		if utf8.RuneCountInString(h.Description) > 1000 {
			return errs.Invalid(at+".description", "must be at most 1000 characters")
		}
	}
	return nil
}

// ValidateHandoffTargets refuses a handoff of the bot self to itself.
func (c *Config) ValidateHandoffTargets(self int64) error {
	for i, h := range c.Handoffs {
		if self != 0 && h.BotID == self {
			return errs.Invalid("handoffs["+strconv.Itoa(i)+"].bot_id", "is this bot itself; a bot cannot hand a conversation to itself")
		}
	}
	return nil
}
