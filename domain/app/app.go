// Package app holds apps (Coze's projects): a named group of a workspace's
// workflows that share app variables. An app declares its variables with
// a type and a default; each end user of the app has values of their own,
// which the app's workflows read and assign.
package app

import (
	"context"
	"encoding/json"
	"fmt"
	"regexp"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/pergola-ai/pergola/domain/errs"
	"github.com/pergola-ai/pergola/domain/identity"
)

// Limits of an app.
const (
	MaxVariables  = 50
	MaxValueBytes = 64 << 10 // of a value's JSON
	MaxNameLen    = 100
)

// Variable types.
const (
	TypeString  = "string"
	TypeInteger = "integer"
	TypeNumber  = "number"
	TypeBoolean = "boolean"
	TypeObject  = "object"
	TypeArray   = "array"
)

// App is a group of workflows sharing variables.
type App struct {
	ID          int64
	WorkspaceID int64
	CreatorID   int64
	Name        string
	Description string
	Variables   []Variable
	// Conversations are the declared conversation templates besides
	// Default (see Templates).
	Conversations []string
	CreatedAt     time.Time
	UpdatedAt     time.Time
}

// Variable is an app variable: its name, type and default value.
type Variable struct {
	Name        string
	Type        string
	Default     any // a value of Type; nil when there is none (see Resolve)
	Description string
}

// Scope is whose values: an end user of an app on a connector.
type Scope struct {
	AppID       int64
	ConnectorID string
	UserID      string
}

var namePattern = regexp.MustCompile(`^[A-Za-z][A-Za-z0-9_]{0,63}$`)

// Validate checks an app's name and variables.
func (a *App) Validate() error {
	a.Name = strings.TrimSpace(a.Name)
	if a.Name == "" || utf8.RuneCountInString(a.Name) > MaxNameLen {
		return errs.Invalid("name", "is required, at most %d characters", MaxNameLen)
	}
	if err := a.validateConversations(); err != nil {
		return err
	}
	if len(a.Variables) > MaxVariables {
		return errs.Invalid("variables", "at most %d, got %d", MaxVariables, len(a.Variables))
	}
	seen := map[string]bool{}
	for i, v := range a.Variables {
		at := "variables[" + strconv.Itoa(i) + "]"
		if !namePattern.MatchString(v.Name) {
			return errs.Invalid(at+".name", "must start with a letter and hold only letters, digits and _ (at most 64); got %q", v.Name)
		}
		if seen[v.Name] {
			return errs.Invalid(at+".name", "%q is declared twice", v.Name)
		}
		seen[v.Name] = true
		if err := validType(v.Type); err != nil {
			return errs.Invalid(at+".type", "%v", err)
		}
		if err := CheckValue(v.Type, v.Default); err != nil {
			return errs.Invalid(at+".default", "%v", err)
		}
	}
	return nil
}

// Find returns the variable named name.
func (a *App) Find(name string) (Variable, bool) {
	for _, v := range a.Variables {
		if v.Name == name {
			return v, true
		}
	}
	return Variable{}, false
}

// Resolve returns every variable with its value for a scope: the stored
// one when there is one, else the default, else as Coze the zero value of
// its type ("", 0, false; null for an object or array).
func (a *App) Resolve(stored map[string]any) map[string]any {
	out := make(map[string]any, len(a.Variables))
	for _, v := range a.Variables {
		out[v.Name] = v.Default
		if v.Default == nil {
			out[v.Name] = zero(v.Type)
		}
		if s, ok := stored[v.Name]; ok {
			out[v.Name] = s
		}
	}
	return out
}

// zero is the value of a variable of type typ that has none.
func zero(typ string) any {
	switch typ {
	case TypeString:
		return ""
	case TypeInteger:
		return int64(0)
	case TypeNumber:
		return float64(0)
	case TypeBoolean:
		return false
	}
	return nil
}

// Store keeps apps and the values of their variables. Writes act only
// inside the given workspace; GetApp returns errs.ErrNotFound when
// unknown.
type Store interface {
	CreateApp(ctx context.Context, a *App) error
	GetApp(ctx context.Context, id int64) (*App, error)
	ListApps(ctx context.Context, workspaceID int64, p identity.Page) ([]App, int64, error)
	UpdateApp(ctx context.Context, workspaceID, id int64, fn func(*App) error) (*App, error)
	// DeleteApp removes the app with the values of its variables.
	DeleteApp(ctx context.Context, workspaceID, id int64) error
	// Values returns the stored values of a scope, by variable name.
	Values(ctx context.Context, s Scope) (map[string]any, error)
	// SetValues inserts or replaces values of a scope, atomically.
	SetValues(ctx context.Context, s Scope, values map[string]any) error
	// DeleteValues removes the named values of a scope (every one when
	// names is empty), so that they read as their defaults again.
	DeleteValues(ctx context.Context, s Scope, names []string) error
}

// Conversations keeps the names of end users' conversations in an app.
// ConversationID returns 0 for an unknown name; Name errs.ErrConflict when
// the name is taken.
type Conversations interface {
	ConversationID(ctx context.Context, s Scope, name string) (int64, error)
	NameConversation(ctx context.Context, s Scope, name string, conversationID int64) error
	RenameConversation(ctx context.Context, s Scope, name, newName string) error
	UnnameConversation(ctx context.Context, s Scope, name string) error
	// NamedConversations lists the scope's conversations, oldest first.
	NamedConversations(ctx context.Context, s Scope) ([]NamedConversation, error)
}

// NamedConversation is a conversation of an end user in an app.
type NamedConversation struct {
	Name           string
	ConversationID int64
}

// CheckValue checks that v is a value of type typ (nil always is).
func CheckValue(typ string, v any) error {
	if v == nil {
		return validType(typ)
	}
	ok := false
	switch typ {
	case TypeString:
		_, ok = v.(string)
	case TypeInteger:
		f, isNum := number(v)
		ok = isNum && f == float64(int64(f))
	case TypeNumber:
		_, ok = number(v)
	case TypeBoolean:
		_, ok = v.(bool)
	case TypeObject:
		_, ok = v.(map[string]any)
	case TypeArray:
		_, ok = v.([]any)
	default:
		return validType(typ)
	}
	if !ok {
		return fmt.Errorf("%s is not a %s", preview(v), typ)
	}
	if b, _ := json.Marshal(v); len(b) > MaxValueBytes {
		return fmt.Errorf("is larger than %d bytes", MaxValueBytes)
	}
	return nil
}

func validType(typ string) error {
	switch typ {
	case TypeString, TypeInteger, TypeNumber, TypeBoolean, TypeObject, TypeArray:
		return nil
	}
	return fmt.Errorf("type must be string, integer, number, boolean, object or array; got %q", typ)
}

func number(v any) (float64, bool) {
	switch x := v.(type) {
	case float64:
		return x, true
	case int64:
		return float64(x), true
	case int:
		return float64(x), true
	case json.Number:
		f, err := x.Float64()
		return f, err == nil
	}
	return 0, false
}

func preview(v any) string {
	b, _ := json.Marshal(v)
	if len(b) > 40 {
		return string(b[:40]) + "…"
	}
	return string(b)
}
