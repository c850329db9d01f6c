package texttool

import (
	"context"
	"regexp"
	"strings"

	"github.com/pergola-ai/pergola/domain/errs"
	"github.com/pergola-ai/pergola/plugins/internal/tool"
)

// compile reads the regular expression in the argument field. It fails
// with errs.Invalid naming field when it is too long or does not compile.
func compile(field, pattern string) (*regexp.Regexp, error) {
	if len(pattern) > maxPattern {
		return nil, errs.Invalid(field, "is %d bytes; the limit is %d", len(pattern), maxPattern)
	}
	re, err := regexp.Compile(pattern)
	if err != nil {
		return nil, errs.Invalid(field, "is not a valid regular expression (RE2 syntax): %v", err)
	}
	return re, nil
}

// match is one match for the model: the text, its groups, byte offsets.
type match struct {
	Match  string            `json:"match"`
	Start  int               `json:"start"`
	End    int               `json:"end"`
	Groups []string          `json:"groups,omitempty"`
	Named  map[string]string `json:"named,omitempty"`
}

func regexMatch(_ context.Context, args map[string]any) (string, error) {
	s, err := text(args)
	if err != nil {
		return "", err
	}
	pattern, err := tool.String(args, "pattern")
	if err != nil {
		return "", err
	}
	re, err := compile("pattern", pattern)
	if err != nil {
		return "", err
	}
	limit, err := tool.OptInt(args, "limit", 100, 1, 1000)
	if err != nil {
		return "", err
	}
	found := re.FindAllStringSubmatchIndex(s, limit)
	matches := make([]match, 0, len(found))
	for _, loc := range found {
		matches = append(matches, newMatch(re, s, loc))
	}
	return marshal(map[string]any{"matched": len(matches) > 0, "count": len(matches), "matches": matches}), nil
}

func newMatch(re *regexp.Regexp, s string, loc []int) match {
	m := match{Match: s[loc[0]:loc[1]], Start: loc[0], End: loc[1]}
	names := re.SubexpNames()
	for i := 1; i < len(loc)/2; i++ {
		group := ""
		if loc[2*i] >= 0 {
			group = s[loc[2*i]:loc[2*i+1]]
		}
		m.Groups = append(m.Groups, group)
		if names[i] != "" {
			if m.Named == nil {
				m.Named = map[string]string{}
			}
			m.Named[names[i]] = group
		}
	}
	return m
}

func replace(_ context.Context, args map[string]any) (string, error) {
	s, err := text(args)
	if err != nil {
		return "", err
	}
	find, err := tool.String(args, "find")
	if err != nil {
		return "", err
	}
	repl, err := tool.OptString(args, "replacement", "")
	if err != nil {
		return "", err
	}
	isRegex, err := tool.OptBool(args, "regex", false)
	if err != nil {
		return "", err
	}
	limit, err := tool.OptInt(args, "limit", 0, 0, maxText)
	if err != nil {
		return "", err
	}
	if limit == 0 {
		limit = -1 // all
	}
	if isRegex {
		re, err := compile("find", find)
		if err != nil {
			return "", err
		}
		return replaceRegex(re, s, repl, limit)
	}
	if find == "" {
		return "", errs.Invalid("find", "must not be empty")
	}
	n := strings.Count(s, find)
	if limit >= 0 {
		n = min(n, limit)
	}
	if len(s)+n*(len(repl)-len(find)) > maxOutput {
		return "", errs.Invalid("replacement", "the result would be over %d bytes", maxOutput)
	}
	return strings.Replace(s, find, repl, limit), nil
}

// replaceRegex replaces up to limit matches (all when negative), building
// the result itself so it can stop before the output grows too large.
func replaceRegex(re *regexp.Regexp, s, repl string, limit int) (string, error) {
	var b []byte
	last := 0
	for _, loc := range re.FindAllStringSubmatchIndex(s, limit) {
		b = append(b, s[last:loc[0]]...)
		b = re.ExpandString(b, repl, s, loc)
		last = loc[1]
		if len(b) > maxOutput {
			return "", errs.Invalid("replacement", "the result would be over %d bytes", maxOutput)
		}
	}
	b = append(b, s[last:]...)
	if len(b) > maxOutput {
		return "", errs.Invalid("replacement", "the result would be over %d bytes", maxOutput)
	}
	return string(b), nil
}
