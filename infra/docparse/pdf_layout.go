package docparse

import (
	"math"
	"strings"

	"github.com/ledongthuc/pdf"
)

// layoutText writes a page's glyphs, given in drawing order with their
// positions, as lines: a new line where the baseline moves, a blank line
// where it moves more than 1.7 font sizes (a new paragraph), and a
// space where a gap between glyphs is wider than a fifth of the font
// size (PDFs often place words apart instead of drawing spaces).
func layoutText(glyphs []pdf.Text) string {
	var b strings.Builder
	var prev *pdf.Text
	for i := range glyphs {
		g := &glyphs[i]
		if g.S == "" {
			continue
		}
		if prev != nil {
			b.WriteString(glyphGap(prev, g))
		}
		b.WriteString(g.S)
		prev = g
	}
	return b.String()
}

// glyphGap is what goes between two glyphs drawn one after the other.
func glyphGap(prev, g *pdf.Text) string {
	size := math.Max(math.Max(prev.FontSize, g.FontSize), 1)
	dy := math.Abs(g.Y - prev.Y)
	switch {
	case dy > size*1.7:
		return "\n\n"
	case dy > size*0.5:
		return "\n"
	}
	gap := g.X - (prev.X + prev.W)
	if gap > size*0.2 && !strings.HasSuffix(prev.S, " ") && !strings.HasPrefix(g.S, " ") {
		return " "
	}
	return ""
}
