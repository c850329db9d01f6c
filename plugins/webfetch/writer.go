package webfetch

import (
	"net/url"
	"strings"

	"golang.org/x/net/html"
	"golang.org/x/net/html/atom"
)

// textWriter renders HTML nodes as text: white space collapsed, blocks on
// their own lines, headings as "#", list items as "-", table cells
// separated by " | ".
type textWriter struct {
	b      strings.Builder
	breaks int  // line breaks owed before the next text
	space  bool // a space owed before the next text
	pre    int  // depth inside <pre>
	base   *url.URL
	links  bool
}

func (w *textWriter) node(n *html.Node) {
	switch n.Type {
	case html.TextNode:
		w.text(n.Data)
		return
	case html.ElementNode:
		w.element(n)
		return
	}
	w.children(n)
}

func (w *textWriter) children(n *html.Node) {
	for c := n.FirstChild; c != nil; c = c.NextSibling {
		w.node(c)
	}
}

func (w *textWriter) element(n *html.Node) {
	a := n.DataAtom
	if skipped(a) || hidden(n) {
		return
	}
	breaks := blockBreaks(a)
	w.lineBreak(breaks)
	switch {
	case headingLevel(a) > 0:
		w.write(strings.Repeat("#", headingLevel(a)) + " ")
	case a == atom.Li:
		w.write("- ")
	case a == atom.Td || a == atom.Th:
		w.cellSeparator()
	case a == atom.Hr:
		w.write("---")
	case a == atom.Img:
		if alt := strings.TrimSpace(attr(n, "alt")); alt != "" {
			w.text("[image: " + alt + "]")
		}
	case a == atom.A && w.links:
		w.link(n)
		return
	case a == atom.Pre:
		w.pre++
		defer func() { w.pre-- }()
	}
	w.children(n)
	w.lineBreak(breaks)
}

// link writes [text](address) for an http(s) link, else its text.
func (w *textWriter) link(n *html.Node) {
	href, err := w.base.Parse(strings.TrimSpace(attr(n, "href")))
	label := strings.Join(strings.Fields(textOf(n)), " ")
	if err != nil || (href.Scheme != "http" && href.Scheme != "https") || label == "" {
		w.children(n)
		return
	}
	w.text("[" + label + "](" + href.String() + ")")
}

func (w *textWriter) cellSeparator() {
	s := w.b.String()
	if len(s) > 0 && s[len(s)-1] != '\n' && w.breaks == 0 {
		w.space = false
		w.b.WriteString(" | ")
	}
}

// text writes a text node, collapsing white space outside <pre>.
func (w *textWriter) text(s string) {
	if w.pre > 0 {
		w.write(s)
		return
	}
	if s != "" && isSpace(s[0]) {
		w.space = true
	}
	fields := strings.Fields(s)
	for i, f := range fields {
		if i > 0 {
			w.space = true
		}
		w.write(f)
	}
	if len(fields) > 0 && isSpace(s[len(s)-1]) {
		w.space = true
	}
}

// write emits s after the owed line breaks or space.
func (w *textWriter) write(s string) {
	if s == "" {
		return
	}
	if w.b.Len() > 0 {
		switch {
		case w.breaks > 0:
			w.b.WriteString(strings.Repeat("\n", w.breaks))
		case w.space:
			w.b.WriteByte(' ')
		}
	}
	w.breaks, w.space = 0, false
	w.b.WriteString(s)
}

// lineBreak owes n line breaks (at most two) before the next text.
func (w *textWriter) lineBreak(n int) {
	w.breaks = max(w.breaks, n)
}

func isSpace(c byte) bool { return c == ' ' || c == '\n' || c == '\t' || c == '\r' || c == '\f' }

func attr(n *html.Node, key string) string {
	for _, a := range n.Attr {
		if a.Key == key {
			return a.Val
		}
	}
	return ""
}

// hidden reports elements the page hides from readers.
func hidden(n *html.Node) bool {
	if attr(n, "aria-hidden") == "true" {
		return true
	}
	for _, a := range n.Attr {
		if a.Key == "hidden" {
			return true
		}
	}
	style := strings.ReplaceAll(strings.ToLower(attr(n, "style")), " ", "")
	return strings.Contains(style, "display:none") || strings.Contains(style, "visibility:hidden")
}
