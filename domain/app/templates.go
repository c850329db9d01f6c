package app

import (
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/pergola-ai/pergola/domain/errs"
)

// DefaultConversation is the conversation template every app has.
const DefaultConversation = "Default"

// MaxConversations bounds an app's declared conversation templates.
const MaxConversations = 50

// Templates are the app's conversation templates (Coze's app
// conversations): Default and those declared. Every end user of the app
// has one conversation of each, made on first use; conversation nodes may
// read and write them but neither rename nor delete them, as in Coze.
func (a *App) Templates() []string {
	return append([]string{DefaultConversation}, a.Conversations...)
}

// IsTemplate says whether name is one of the app's conversation templates.
func (a *App) IsTemplate(name string) bool {
	for _, t := range a.Templates() {
		if t == name {
			return true
		}
	}
	return false
}

// validateConversations trims the declared templates and checks them.
func (a *App) validateConversations() error {
	if len(a.Conversations) > MaxConversations {
		return errs.Invalid("conversations", "at most %d, got %d", MaxConversations, len(a.Conversations))
	}
	seen := map[string]bool{DefaultConversation: true}
	for i, name := range a.Conversations {
		at := "conversations[" + strconv.Itoa(i) + "]"
		name = strings.TrimSpace(name)
		a.Conversations[i] = name
		if name == "" || utf8.RuneCountInString(name) > MaxNameLen {
			return errs.Invalid(at, "must be a name of 1 to %d characters", MaxNameLen)
		}
		if seen[name] {
			return errs.Invalid(at, "%q is declared twice (Default is always there)", name)
		}
		seen[name] = true
	}
	return nil
}
