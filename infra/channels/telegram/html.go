package telegram

import (
	"html"
	"regexp"
	"strconv"
	"strings"
)

var (
	inlineCode = regexp.MustCompile("`([^`\n]+)`")
	mdLink     = regexp.MustCompile(`\[([^\]\n]+)\]\((https?://[^)\s]+)\)`)
	bold       = regexp.MustCompile(`\*\*([^*\n]+)\*\*|__([^_\n]+)__`)
	italic     = regexp.MustCompile(`(^|[^\w*])\*([^*\s][^*\n]*)\*|(^|[^\w])_([^_\s][^_\n]*)_($|[^\w])`)
	strike     = regexp.MustCompile(`~~([^~\n]+)~~`)
	heading    = regexp.MustCompile(`^#{1,6}\s+(.*)$`)
	bullet     = regexp.MustCompile(`^(\s*)[-*+]\s+`)
	held       = regexp.MustCompile("\x00([0-9]+)\x00")
)

// HTML converts a Markdown answer to the HTML subset Telegram reads with
// parse_mode HTML: fenced code as <pre><code>, `code`, **bold**,
// *italic*, ~~strike~~, [links](https://…), headings as bold lines and
// bullets as •. Everything else is escaped, so no text of the answer
// can open a tag.
func HTML(md string) string {
	lines := strings.Split(md, "\n")
	out := make([]string, 0, len(lines))
	for i := 0; i < len(lines); i++ {
		if lang, ok := fenceOpen(lines[i]); ok {
			end := fenceEnd(lines, i+1)
			out = append(out, preBlock(lang, lines[i+1:end]))
			i = end
			continue
		}
		out = append(out, htmlLine(lines[i]))
	}
	return strings.Join(out, "\n")
}

func fenceOpen(line string) (string, bool) {
	t := strings.TrimSpace(line)
	if !strings.HasPrefix(t, "```") {
		return "", false
	}
	return strings.TrimSpace(strings.TrimPrefix(t, "```")), true
}

// fenceEnd is the index of the closing fence, or len(lines) when none.
func fenceEnd(lines []string, from int) int {
	for j := from; j < len(lines); j++ {
		if strings.HasPrefix(strings.TrimSpace(lines[j]), "```") {
			return j
		}
	}
	return len(lines)
}

func preBlock(lang string, body []string) string {
	code := html.EscapeString(strings.Join(body, "\n"))
	if lang == "" || strings.ContainsAny(lang, `"<>& `) {
		return "<pre>" + code + "</pre>"
	}
	return `<pre><code class="language-` + lang + `">` + code + "</code></pre>"
}

// htmlLine converts one line outside code blocks. Code spans and links
// are set aside first so the emphasis rules cannot reach into them.
func htmlLine(line string) string {
	var kept []string
	hold := func(s string) string {
		kept = append(kept, s)
		return "\x00" + strconv.Itoa(len(kept)-1) + "\x00"
	}
	line = strings.ReplaceAll(line, "\x00", "")
	line = inlineCode.ReplaceAllStringFunc(line, func(m string) string {
		return hold("<code>" + html.EscapeString(m[1:len(m)-1]) + "</code>")
	})
	line = mdLink.ReplaceAllStringFunc(line, func(m string) string {
		p := mdLink.FindStringSubmatch(m)
		return hold(`<a href="` + html.EscapeString(p[2]) + `">` + html.EscapeString(p[1]) + "</a>")
	})
	line = emphasis(html.EscapeString(line))
	return held.ReplaceAllStringFunc(line, func(m string) string {
		n, _ := strconv.Atoi(m[1 : len(m)-1])
		return kept[n]
	})
}

func emphasis(line string) string {
	if h := heading.FindStringSubmatch(line); h != nil {
		line = "**" + h[1] + "**"
	}
	line = bullet.ReplaceAllString(line, "$1• ")
	line = bold.ReplaceAllString(line, "<b>$1$2</b>")
	line = italic.ReplaceAllString(line, "$1$3<i>$2$4</i>$5")
	return strike.ReplaceAllString(line, "<s>$1</s>")
}
