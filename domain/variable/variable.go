// Package variable is keyword memory: the variables a bot defines and the
// values it keeps per bot, end user and channel. Values fill the persona's
// {{keyword}} placeholders and the variables block of the system prompt;
// the model writes them with the setKeywordMemory tool.
package variable

import (
	"context"
	"regexp"
	"strconv"
	"time"
	"unicode/utf8"

	"github.com/pergola-ai/pergola/domain/errs"
)

// Limits of keyword memory.
const (
	MaxDefinitions = 50
	MaxValueLen    = 2000 // characters
)

// Definition is one variable a bot defines.
type Definition struct {
	Keyword      string
	Default      string
	Description  string
	ShowInPrompt bool // listed in the system prompt's variables block
}

var keywordPattern = regexp.MustCompile(`^[A-Za-z][A-Za-z0-9_]{0,63}$`)

// ValidateDefinitions checks a bot's variables; field names start at at,
// e.g. "variables".
func ValidateDefinitions(at string, defs []Definition) error {
	if len(defs) > MaxDefinitions {
		return errs.Invalid(at, "at most %d variables, got %d", MaxDefinitions, len(defs))
	}
	seen := map[string]bool{}
	for i, d := range defs {
		field := at + "[" + strconv.Itoa(i) + "]"
		if !keywordPattern.MatchString(d.Keyword) {
			return errs.Invalid(field+".keyword", "must start with a letter and hold only letters, digits and _ (at most 64); got %q", d.Keyword)
		}
		if seen[d.Keyword] {
			return errs.Invalid(field+".keyword", "%q is defined twice", d.Keyword)
		}
		seen[d.Keyword] = true
		if utf8.RuneCountInString(d.Default) > MaxValueLen {
			return errs.Invalid(field+".default", "must be at most %d characters", MaxValueLen)
		}
		if utf8.RuneCountInString(d.Description) > 500 {
			return errs.Invalid(field+".description", "must be at most 500 characters")
		}
	}
	return nil
}

// Value is the stored value of one variable for one end user on one channel.
type Value struct {
	BotID       int64
	ConnectorID string // the channel; "1024" is the API, as in Coze
	UserID      string // the end user (Coze's connector_uid)
	Keyword     string
	Value       string
	CreatedAt   time.Time
	UpdatedAt   time.Time
}

// Scope names whose values are meant: one bot, one channel, one end user.
type Scope struct {
	BotID       int64
	ConnectorID string
	UserID      string
}

// KV is one keyword and value pair.
type KV struct {
	Keyword string
	Value   string
}

// Accept splits updates into those the definitions allow and the keywords
// it refuses (undefined ones or values that are too long), keeping order.
func Accept(defs []Definition, updates []KV) (accepted []KV, refused []string) {
	defined := make(map[string]bool, len(defs))
	for _, d := range defs {
		defined[d.Keyword] = true
	}
	for _, u := range updates {
		if !defined[u.Keyword] || utf8.RuneCountInString(u.Value) > MaxValueLen {
			refused = append(refused, u.Keyword)
			continue
		}
		accepted = append(accepted, u)
	}
	return accepted, refused
}

// Resolve returns every defined keyword with its value for the scope: the
// stored value when there is one, the default otherwise.
func Resolve(defs []Definition, stored []Value) map[string]string {
	out := make(map[string]string, len(defs))
	for _, d := range defs {
		out[d.Keyword] = d.Default
	}
	for _, v := range stored {
		if _, ok := out[v.Keyword]; ok {
			out[v.Keyword] = v.Value
		}
	}
	return out
}

// Store keeps variable values.
type Store interface {
	// GetValues returns the stored values of the scope, only those of the
	// given keywords when any are given.
	GetValues(ctx context.Context, s Scope, keywords []string) ([]Value, error)
	// SetValues inserts or replaces values of the scope, atomically.
	SetValues(ctx context.Context, s Scope, kvs []KV) error
	// DeleteValues removes values of the scope (all when no keyword is given).
	DeleteValues(ctx context.Context, s Scope, keywords []string) error
}
