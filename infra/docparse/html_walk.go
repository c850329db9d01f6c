package docparse

import (
	"strings"

	"github.com/pergola-ai/pergola/domain/knowledge"
	"golang.org/x/net/html"
	"golang.org/x/net/html/atom"
)

// htmlWalker gathers an HTML tree's text into sections.
type htmlWalker struct {
	drop map[atom.Atom]bool
	secs []knowledge.Section
	path []string // heading texts by level, path[0] is h1
	text strings.Builder
	pre  int // depth inside <pre>, where whitespace is kept
	// breaks counts the newlines the text ends with, so nested blocks
	// make one paragraph break, not several.
	breaks int
}

var headingLevel = map[atom.Atom]int{atom.H1: 1, atom.H2: 2, atom.H3: 3, atom.H4: 4, atom.H5: 5, atom.H6: 6}

// blocks end a paragraph; rows and list items end a line.
var (
	paragraphBlocks = map[atom.Atom]bool{
		atom.P: true, atom.Div: true, atom.Section: true, atom.Article: true, atom.Main: true,
		atom.Blockquote: true, atom.Pre: true, atom.Table: true, atom.Ul: true, atom.Ol: true,
		atom.Dl: true, atom.Figure: true, atom.Hr: true, atom.Header: true, atom.Footer: true,
	}
	lineBlocks = map[atom.Atom]bool{
		atom.Br: true, atom.Li: true, atom.Tr: true, atom.Dt: true, atom.Dd: true, atom.Figcaption: true,
	}
)

func (w *htmlWalker) walk(n *html.Node) {
	switch n.Type {
	case html.TextNode:
		w.writeText(n.Data)
		return
	case html.ElementNode:
		if w.drop[n.DataAtom] {
			return
		}
		if level, ok := headingLevel[n.DataAtom]; ok {
			w.heading(level, collapse(textOf(n)))
			return
		}
	}
	w.open(n)
	for c := n.FirstChild; c != nil; c = c.NextSibling {
		w.walk(c)
	}
	w.close(n)
}

func (w *htmlWalker) open(n *html.Node) {
	if n.DataAtom == atom.Pre {
		w.pre++
	}
	w.breakFor(n)
}

func (w *htmlWalker) close(n *html.Node) {
	if n.DataAtom == atom.Pre {
		w.pre--
	}
	if n.DataAtom == atom.Td || n.DataAtom == atom.Th {
		w.writeText(" | ")
	}
	w.breakFor(n)
}

// breakFor ends the paragraph or line at a block element's edges.
func (w *htmlWalker) breakFor(n *html.Node) {
	switch {
	case paragraphBlocks[n.DataAtom]:
		w.newlines(2)
	case n.DataAtom == atom.Br:
		w.text.WriteString("\n")
		w.breaks++
	case lineBlocks[n.DataAtom]:
		w.newlines(1)
	}
}

// newlines ends the text with at least k newlines.
func (w *htmlWalker) newlines(k int) {
	for ; w.breaks < k; w.breaks++ {
		w.text.WriteString("\n")
	}
}

func (w *htmlWalker) writeText(s string) {
	if w.pre == 0 {
		s = collapseKeepEdges(s)
	}
	if strings.TrimSpace(s) != "" {
		w.breaks = 0
	}
	w.text.WriteString(s)
}

// heading closes the current section and starts one under the heading.
func (w *htmlWalker) heading(level int, title string) {
	if title == "" {
		return
	}
	w.flush()
	if len(w.path) >= level {
		w.path = w.path[:level-1]
	}
	for len(w.path) < level-1 {
		w.path = append(w.path, "")
	}
	w.path = append(w.path, title)
}

func (w *htmlWalker) flush() {
	text := tidyLines(w.text.String())
	w.text.Reset()
	if text == "" && len(w.path) == 0 {
		return
	}
	w.secs = append(w.secs, knowledge.Section{Headings: compact(w.path), Text: text})
}

// textOf is all the text under n.
func textOf(n *html.Node) string {
	if n.Type == html.TextNode {
		return n.Data
	}
	var b strings.Builder
	for c := n.FirstChild; c != nil; c = c.NextSibling {
		b.WriteString(textOf(c))
		b.WriteString(" ")
	}
	return b.String()
}

// collapse joins the words of s with single spaces.
func collapse(s string) string { return strings.Join(strings.Fields(s), " ") }

// collapseKeepEdges collapses whitespace but keeps a space where s began
// or ended with some, so inline elements stay apart from their words.
func collapseKeepEdges(s string) string {
	if strings.TrimSpace(s) == "" {
		if s == "" {
			return ""
		}
		return " "
	}
	out := collapse(s)
	if strings.TrimLeft(s, " \t\r\n") != s {
		out = " " + out
	}
	if strings.TrimRight(s, " \t\r\n") != s {
		out += " "
	}
	return out
}

// tidyLines trims every line, drops table cell separators at line ends
// and keeps at most one blank line between paragraphs.
func tidyLines(s string) string {
	var out []string
	blank := false
	for _, line := range strings.Split(s, "\n") {
		line = strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(line), "|"))
		if line == "" {
			blank = len(out) > 0
			continue
		}
		if blank {
			out = append(out, "")
			blank = false
		}
		out = append(out, line)
	}
	return strings.Join(out, "\n")
}
