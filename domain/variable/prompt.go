package variable

import (
	"regexp"
	"strings"
)

var placeholder = regexp.MustCompile(`\{\{\s*([A-Za-z][A-Za-z0-9_]*)\s*\}\}`)

// Render replaces {{keyword}} placeholders in text with values. Unknown
// placeholders are left as written, so a typo stays visible to the builder.
func Render(text string, values map[string]string) string {
	if !strings.Contains(text, "{{") {
		return text
	}
	return placeholder.ReplaceAllStringFunc(text, func(m string) string {
		key := placeholder.FindStringSubmatch(m)[1]
		if v, ok := values[key]; ok {
			return v
		}
		return m
	})
}

// Placeholders lists the keywords text refers to, in order of appearance.
func Placeholders(text string) []string {
	var out []string
	seen := map[string]bool{}
	for _, m := range placeholder.FindAllStringSubmatch(text, -1) {
		if !seen[m[1]] {
			seen[m[1]] = true
			out = append(out, m[1])
		}
	}
	return out
}
