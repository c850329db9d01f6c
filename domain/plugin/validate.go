package plugin

import (
	"net/url"
	"regexp"
	"strings"
	"unicode/utf8"

	"github.com/pergola-ai/pergola/domain/errs"
)

// Limits of a plugin.
const (
	MaxNameLen        = 100
	MaxDescriptionLen = 2000
	// MaxDocumentBytes bounds an OpenAPI document.
	MaxDocumentBytes = 1 << 20
	// MaxTools bounds the tools of one plugin.
	MaxTools = 100
	// MaxToolDescriptionLen is what a model is given of a tool's
	// description (OpenAI's function description limit).
	MaxToolDescriptionLen = 1024
	// MaxSchemaBytes bounds the JSON Schema of one tool's arguments.
	MaxSchemaBytes = 64 << 10
)

// toolNamePattern is what model providers accept as a function name.
var toolNamePattern = regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_-]{0,63}$`)

// ValidToolName reports whether name can be given to a model.
func ValidToolName(name string) bool { return toolNamePattern.MatchString(name) }

// ToolName turns an operation id (or "get /pets/{id}") into a name a model
// accepts: other characters become '_', a leading digit gets a '_', and it
// is cut to 64 characters. It returns "" when nothing usable is left.
func ToolName(raw string) string {
	var b strings.Builder
	lastUnderscore := false
	for _, r := range raw {
		ok := r == '_' || r == '-' || (r >= 'a' && r <= 'z') || (r >= 'A' && r <= 'Z') || (r >= '0' && r <= '9')
		if !ok {
			r = '_'
		}
		if r == '_' && lastUnderscore {
			continue
		}
		lastUnderscore = r == '_'
		b.WriteRune(r)
	}
	name := strings.Trim(b.String(), "_-")
	if name == "" {
		return ""
	}
	if name[0] >= '0' && name[0] <= '9' || name[0] == '-' {
		name = "_" + name
	}
	if len(name) > 64 {
		name = name[:64]
	}
	return name
}

// ValidateMeta checks the name and description a builder gives.
func ValidateMeta(name, description string) error {
	if strings.TrimSpace(name) == "" {
		return errs.Invalid("name", "is required")
	}
	if utf8.RuneCountInString(name) > MaxNameLen {
		return errs.Invalid("name", "must be at most %d characters", MaxNameLen)
	}
	if utf8.RuneCountInString(description) > MaxDescriptionLen {
		return errs.Invalid("description", "must be at most %d characters", MaxDescriptionLen)
	}
	return nil
}

// ValidateServerURL checks a base URL calls go to: absolute http(s).
func ValidateServerURL(field, raw string) error {
	u, err := url.Parse(raw)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return errs.Invalid(field, "must be an absolute http(s) URL, got %q", raw)
	}
	if u.User != nil {
		return errs.Invalid(field, "must not carry credentials; use auth instead")
	}
	return nil
}

// TrimDescription cuts a tool description to what models accept.
func TrimDescription(s string) string {
	s = strings.TrimSpace(s)
	if utf8.RuneCountInString(s) <= MaxToolDescriptionLen {
		return s
	}
	r := []rune(s)
	return string(r[:MaxToolDescriptionLen-1]) + "…"
}
