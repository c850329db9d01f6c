package workflow

import (
	"fmt"
	"regexp"
	"strings"
)

// template is a parsed text with {{path}} placeholders. A path is a name
// followed by dotted keys or indexes: {{user.name}}, {{items.0}}. Text
// outside placeholders is kept as it is; "{{" without a closing "}}" is
// literal text.
type template struct {
	parts []tmplPart
}

// tmplPart is literal text, or a placeholder when path is set.
type tmplPart struct {
	text string
	path []string
}

var placeholderPath = regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_-]*(\.[A-Za-z0-9_-]+)*$`)

// parseTemplate splits s into text and placeholders. A placeholder that is
// not a path is an error naming it.
func parseTemplate(s string) (*template, error) {
	t := &template{}
	for s != "" {
		start := strings.Index(s, "{{")
		if start < 0 {
			t.parts = append(t.parts, tmplPart{text: s})
			break
		}
		end := strings.Index(s[start+2:], "}}")
		if end < 0 {
			t.parts = append(t.parts, tmplPart{text: s})
			break
		}
		if start > 0 {
			t.parts = append(t.parts, tmplPart{text: s[:start]})
		}
		expr := strings.TrimSpace(s[start+2 : start+2+end])
		if !placeholderPath.MatchString(expr) {
			return nil, fmt.Errorf("placeholder {{%s}} is not a name or a dotted path", expr)
		}
		t.parts = append(t.parts, tmplPart{path: strings.Split(expr, ".")})
		s = s[start+2+end+2:]
	}
	return t, nil
}

// names returns the first segment of every placeholder, in order.
func (t *template) names() []string {
	var out []string
	for _, p := range t.parts {
		if p.path != nil {
			out = append(out, p.path[0])
		}
	}
	return out
}

// render fills the placeholders from vals; a missing value renders as "".
func (t *template) render(vals map[string]any) string { return t.renderWith(vals, text) }

// renderWith renders with show turning each value into text.
func (t *template) renderWith(vals map[string]any, show func(any) string) string {
	if len(t.parts) == 1 && t.parts[0].path == nil {
		return t.parts[0].text
	}
	var b strings.Builder
	for _, p := range t.parts {
		if p.path == nil {
			b.WriteString(p.text)
			continue
		}
		v, _ := valueAt(vals[p.path[0]], p.path[1:])
		b.WriteString(show(v))
	}
	return b.String()
}

// checkTemplate parses s and checks that every placeholder names one of
// the node's inputs; the error names the first that does not.
func checkTemplate(s string, inputs map[string]Input) (*template, error) {
	t, err := parseTemplate(s)
	if err != nil {
		return nil, err
	}
	for _, name := range t.names() {
		if _, ok := inputs[name]; !ok {
			return nil, fmt.Errorf("{{%s}} names no input of the node; add an input %q", name, name)
		}
	}
	return t, nil
}
