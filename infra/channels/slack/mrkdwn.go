package slack

import (
	"regexp"
	"strconv"
	"strings"
)

var (
	inlineCode = regexp.MustCompile("`[^`\n]+`")
	mdLink     = regexp.MustCompile(`\[([^\]\n]+)\]\((https?://[^)\s|>]+)\)`)
	bold       = regexp.MustCompile(`\*\*([^*\n]+)\*\*|__([^_\n]+)__`)
	italic     = regexp.MustCompile(`(^|[^\w*])\*([^*\s][^*\n]*)\*`)
	strike     = regexp.MustCompile(`~~([^~\n]+)~~`)
	heading    = regexp.MustCompile(`^#{1,6}\s+(.*)$`)
	bullet     = regexp.MustCompile(`^(\s*)[-*+]\s+`)
	held       = regexp.MustCompile("\x00([0-9]+)\x00")
	escaper    = strings.NewReplacer("&", "&amp;", "<", "&lt;", ">", "&gt;")
)

// Mrkdwn converts a Markdown answer to Slack's mrkdwn: **bold** and
// __bold__ to *bold*, *italic* to _italic_, ~~strike~~ to ~strike~,
// [label](https://…) to <https://…|label>, headings to bold lines and
// bullets to •. Code spans and fenced blocks keep their backticks. &, <
// and > are escaped everywhere, as Slack asks, so no text of the answer
// can become a mention, a channel ping or a link.
func Mrkdwn(md string) string {
	lines := strings.Split(md, "\n")
	inFence := false
	for i, line := range lines {
		if strings.HasPrefix(strings.TrimSpace(line), "```") {
			inFence = !inFence
			lines[i] = escaper.Replace(line)
			continue
		}
		if inFence {
			lines[i] = escaper.Replace(line)
			continue
		}
		lines[i] = mrkdwnLine(line)
	}
	return strings.Join(lines, "\n")
}

// mrkdwnLine converts one line outside code blocks. Code spans and links
// are set aside first so the emphasis rules cannot reach into them.
func mrkdwnLine(line string) string {
	var kept []string
	hold := func(s string) string {
		kept = append(kept, s)
		return "\x00" + strconv.Itoa(len(kept)-1) + "\x00"
	}
	line = strings.ReplaceAll(line, "\x00", "")
	line = inlineCode.ReplaceAllStringFunc(line, func(m string) string { return hold(escaper.Replace(m)) })
	line = mdLink.ReplaceAllStringFunc(line, func(m string) string {
		p := mdLink.FindStringSubmatch(m)
		return hold("<" + escaper.Replace(p[2]) + "|" + escaper.Replace(p[1]) + ">")
	})
	line = emphasis(escaper.Replace(line), hold)
	// A held bold may hold a code span or a link: restore until none is left.
	for i := 0; i <= len(kept) && strings.Contains(line, "\x00"); i++ {
		line = held.ReplaceAllStringFunc(line, func(m string) string {
			n, _ := strconv.Atoi(m[1 : len(m)-1])
			return kept[n]
		})
	}
	return line
}

// emphasis rewrites headings, bullets and emphasis; bold is held so the
// italic rule does not read its single stars.
func emphasis(line string, hold func(string) string) string {
	if h := heading.FindStringSubmatch(line); h != nil {
		line = "**" + h[1] + "**"
	}
	line = bullet.ReplaceAllString(line, "$1• ")
	line = bold.ReplaceAllStringFunc(line, func(m string) string {
		p := bold.FindStringSubmatch(m)
		return hold("*" + p[1] + p[2] + "*")
	})
	line = italic.ReplaceAllString(line, "${1}_${2}_")
	return strike.ReplaceAllString(line, "~$1~")
}
