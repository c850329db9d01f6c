package line

import (
	"regexp"
	"strings"
	"unicode/utf16"
)

// stripSelfMentions removes the mentions of the bot from a text message
// (LINE gives their place in UTF-16 code units) and says whether there
// was one.
func stripSelfMentions(m *message) (string, bool) {
	if m.Mention == nil {
		return strings.TrimSpace(m.Text), false
	}
	units := utf16.Encode([]rune(m.Text))
	keep := make([]bool, len(units))
	for i := range keep {
		keep[i] = true
	}
	mentioned := false
	for _, p := range m.Mention.Mentionees {
		if !p.IsSelf || p.Index < 0 || p.Length <= 0 || p.Index+p.Length > len(units) {
			continue
		}
		mentioned = true
		for i := p.Index; i < p.Index+p.Length; i++ {
			keep[i] = false
		}
	}
	var out []uint16
	for i, u := range units {
		if keep[i] {
			out = append(out, u)
		}
	}
	return strings.Join(strings.Fields(string(utf16.Decode(out))), " "), mentioned
}

var (
	fence     = regexp.MustCompile("(?m)^\\s*```[^\\n]*$\\n?")
	image     = regexp.MustCompile(`!\[([^\]]*)\]\(([^)\s]+)[^)]*\)`)
	link      = regexp.MustCompile(`\[([^\]]+)\]\(([^)\s]+)[^)]*\)`)
	heading   = regexp.MustCompile(`(?m)^#{1,6}\s+`)
	bold      = regexp.MustCompile(`(\*\*|__)(\S(?:.*?\S)?)(\*\*|__)`)
	italic    = regexp.MustCompile(`(^|[^\w*])[*_](\S(?:[^*_\n]*?\S)?)[*_]($|[^\w*])`)
	strike    = regexp.MustCompile(`~~(\S(?:.*?\S)?)~~`)
	code      = regexp.MustCompile("`([^`\\n]+)`")
	bullet    = regexp.MustCompile(`(?m)^(\s*)[*+-]\s+`)
	quoteMark = regexp.MustCompile(`(?m)^>\s?`)
)

// Plain renders Markdown as the plain text LINE shows: emphasis, code
// and heading markers removed, links as "text (url)", images as their
// URL, bullets as "• ". LINE renders no Markdown and turns URLs into
// links itself.
func Plain(md string) string {
	s := fence.ReplaceAllString(md, "")
	s = image.ReplaceAllString(s, "$2")
	s = link.ReplaceAllStringFunc(s, func(m string) string {
		p := link.FindStringSubmatch(m)
		if p[1] == p[2] {
			return p[2]
		}
		return p[1] + " (" + p[2] + ")"
	})
	s = heading.ReplaceAllString(s, "")
	s = bullet.ReplaceAllString(s, "$1• ")
	s = bold.ReplaceAllString(s, "$2")
	s = strike.ReplaceAllString(s, "$1")
	s = italic.ReplaceAllString(s, "$1$2$3")
	s = code.ReplaceAllString(s, "$1")
	return strings.TrimSpace(quoteMark.ReplaceAllString(s, ""))
}
