// Package texttool is the built-in "text" plugin: counting, case, replace,
// split and regular-expression matches. Regular expressions are Go's RE2,
// which runs in time linear in the input, and every input and output is
// bounded.
package texttool

import (
	"context"
	_ "embed"
	"encoding/json"
	"strings"
	"unicode/utf8"

	"golang.org/x/text/cases"
	"golang.org/x/text/language"

	"github.com/pergola-ai/pergola/domain/errs"
	"github.com/pergola-ai/pergola/plugins/internal/tool"
)

// The plugin's identity in the catalog.
const (
	ID          = "text"
	Name        = "Text"
	Description = "Text utilities: count characters and words, change case, replace, split and match regular expressions."
)

// Limits that keep every operation small.
const (
	maxText    = 1 << 20 // bytes of input text
	maxOutput  = 1 << 20 // bytes of output text
	maxPattern = 1000    // bytes of a regular expression
)

//go:embed openapi.yaml
var manifest string

// Manifest returns the plugin's OpenAPI document.
func Manifest() []byte { return []byte(manifest) }

// Plugin runs the text operations. It holds no state.
type Plugin struct{}

// New returns the plugin.
func New() *Plugin { return &Plugin{} }

// Ops returns the operations by operationId.
func (p *Plugin) Ops() tool.Ops {
	return tool.Ops{"count": count, "change_case": changeCase, "replace": replace, "split": split, "regex_match": regexMatch}
}

// Invoke runs operationID. Bad arguments, such as a pattern that does not
// compile or a text over 1 MiB, fail with errs.Invalid naming them.
func (p *Plugin) Invoke(ctx context.Context, operationID string, args map[string]any) (string, error) {
	return p.Ops().Invoke(ctx, operationID, args)
}

// text reads the required "text" argument, at most maxText bytes.
func text(args map[string]any) (string, error) {
	s, err := tool.String(args, "text")
	if err == nil && len(s) > maxText {
		err = errs.Invalid("text", "is %d bytes; the limit is %d", len(s), maxText)
	}
	return s, err
}

func count(_ context.Context, args map[string]any) (string, error) {
	s, err := text(args)
	if err != nil {
		return "", err
	}
	lines := 0
	if s != "" {
		lines = strings.Count(strings.TrimSuffix(s, "\n"), "\n") + 1
	}
	return marshal(map[string]int{
		"characters": utf8.RuneCountInString(s),
		"bytes":      len(s),
		"words":      len(strings.Fields(s)),
		"lines":      lines,
	}), nil
}

func changeCase(_ context.Context, args map[string]any) (string, error) {
	s, err := text(args)
	if err != nil {
		return "", err
	}
	to, err := tool.OptEnum(args, "to", "", "upper", "lower", "title")
	if err != nil {
		return "", err
	}
	switch to {
	case "upper":
		return cases.Upper(language.Und).String(s), nil
	case "lower":
		return cases.Lower(language.Und).String(s), nil
	}
	return cases.Title(language.Und).String(s), nil
}

func split(_ context.Context, args map[string]any) (string, error) {
	s, err := text(args)
	if err != nil {
		return "", err
	}
	sep, err := tool.OptString(args, "separator", "")
	if err != nil {
		return "", err
	}
	trim, err := tool.OptBool(args, "trim", true)
	if err != nil {
		return "", err
	}
	limit, err := tool.OptInt(args, "limit", 0, 0, maxText)
	if err != nil {
		return "", err
	}
	var parts []string
	if sep == "" {
		parts = strings.Fields(s)
		if limit > 0 && len(parts) > limit {
			rest := strings.Join(parts[limit-1:], " ")
			parts = append(parts[:limit-1], rest)
		}
	} else {
		n := -1 // no limit
		if limit > 0 {
			n = limit
		}
		parts = strings.SplitN(s, sep, n)
	}
	out := []string{}
	for _, part := range parts {
		if trim {
			if part = strings.TrimSpace(part); part == "" {
				continue
			}
		}
		out = append(out, part)
	}
	return marshal(out), nil
}

func marshal(v any) string {
	var b strings.Builder
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	_ = enc.Encode(v)
	return strings.TrimSuffix(b.String(), "\n")
}
