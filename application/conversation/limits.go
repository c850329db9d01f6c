package conversation

import (
	"fmt"
	"unicode/utf8"

	"github.com/pergola-ai/pergola/domain/errs"
)

// The settings that set TextLimits, named in the errors that enforce
// them so the operator knows what to raise.
const (
	MessageCharsSetting = "PERGOLA_MAX_MESSAGE_CHARS"
	HistoryCharsSetting = "PERGOLA_MAX_HISTORY_CHARS"
)

// DefaultMessageChars and DefaultHistoryChars are the limits of a server
// that sets none: about 8,000 and 32,000 tokens of English.
const (
	DefaultMessageChars = 32_000
	DefaultHistoryChars = 128_000
)

// TextLimits bound the text a chat sends to a model, the same on every
// surface (the Coze and OpenAI APIs, channels, web chat, MCP, chatflows):
// one message's content, and the earlier messages sent with a turn
// together. A message over MessageChars is refused; history over
// HistoryChars is trimmed, oldest first. Zero fields take the defaults.
type TextLimits struct {
	MessageChars int
	HistoryChars int
}

// WithDefaults returns l with zero fields set to the defaults.
func (l TextLimits) WithDefaults() TextLimits {
	if l.MessageChars <= 0 {
		l.MessageChars = DefaultMessageChars
	}
	if l.HistoryChars <= 0 {
		l.HistoryChars = DefaultHistoryChars
	}
	return l
}

// CheckText refuses text longer than MessageChars characters with
// errs.ErrInvalid naming at, the limit and its setting. It counts bytes
// first: text of no more bytes than the limit is within it.
func (l TextLimits) CheckText(at, text string) error {
	max := l.WithDefaults().MessageChars
	if len(text) <= max {
		return nil
	}
	if n := utf8.RuneCountInString(text); n > max {
		return errs.Invalid(at, "is %d characters, over the limit of %d a message may have (%s); shorten it",
			n, max, MessageCharsSetting)
	}
	return nil
}

// CheckMessages applies CheckText to the content of each message; errors
// name at[i].content.
func (l TextLimits) CheckMessages(at string, in []MessageInput) error {
	for i, m := range in {
		if err := l.CheckText(fmt.Sprintf("%s[%d].content", at, i), m.Content); err != nil {
			return err
		}
	}
	return nil
}
