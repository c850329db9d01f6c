package feishu

import (
	"regexp"
	"strings"
)

var (
	mdLink     = regexp.MustCompile(`\[([^\]]+)\]\(([^)\s]+)\)`)
	mdEmphasis = regexp.MustCompile(`(\*\*|__|~~)(\S(?:.*?\S)?)(\*\*|__|~~)`)
	mdHeading  = regexp.MustCompile(`(?m)^#{1,6}\s+`)
	mdFence    = regexp.MustCompile("(?m)^```[A-Za-z0-9_+-]*\\s*$\n?")
	mdCode     = regexp.MustCompile("`([^`\n]+)`")
	mdBullet   = regexp.MustCompile(`(?m)^(\s*)[*+-]\s+`)
)

// Plain renders Markdown as the plain text a Feishu text message shows:
// links as "text (url)", emphasis, headings, code marks and fences
// dropped, bullets as "• ".
func Plain(md string) string {
	s := mdFence.ReplaceAllString(md, "")
	s = mdLink.ReplaceAllString(s, "$1 ($2)")
	s = mdEmphasis.ReplaceAllString(s, "$2")
	s = mdHeading.ReplaceAllString(s, "")
	s = mdCode.ReplaceAllString(s, "$1")
	s = mdBullet.ReplaceAllString(s, "$1• ")
	return strings.TrimRight(s, "\n")
}
