package webfetch

import (
	"net/url"
	"strings"

	"golang.org/x/net/html"
	"golang.org/x/net/html/atom"
)

// htmlToText returns the title and the readable text of an HTML page.
// When the page marks its content with <main> or <article>, only that is
// rendered, which leaves navigation and footers out.
func htmlToText(src string, base *url.URL, links bool) (title, text string) {
	doc, err := html.Parse(strings.NewReader(src))
	if err != nil {
		return "", src
	}
	if t := find(doc, atom.Title); t != nil {
		title = strings.Join(strings.Fields(textOf(t)), " ")
	}
	root := find(doc, atom.Main)
	if root == nil {
		root = find(doc, atom.Article)
	}
	if root == nil {
		root = doc
	}
	w := &textWriter{base: base, links: links}
	w.node(root)
	return title, strings.TrimSpace(w.b.String())
}

// find returns the first element of type a under n, depth first.
func find(n *html.Node, a atom.Atom) *html.Node {
	if n.Type == html.ElementNode && n.DataAtom == a {
		return n
	}
	for c := n.FirstChild; c != nil; c = c.NextSibling {
		if f := find(c, a); f != nil {
			return f
		}
	}
	return nil
}

// textOf concatenates the text under n.
func textOf(n *html.Node) string {
	var b strings.Builder
	var walk func(*html.Node)
	walk = func(n *html.Node) {
		if n.Type == html.TextNode {
			b.WriteString(n.Data)
		}
		for c := n.FirstChild; c != nil; c = c.NextSibling {
			walk(c)
		}
	}
	walk(n)
	return b.String()
}

// skipped are elements whose content is not readable text.
func skipped(a atom.Atom) bool {
	switch a {
	case atom.Head, atom.Script, atom.Style, atom.Noscript, atom.Template, atom.Svg, atom.Math,
		atom.Canvas, atom.Iframe, atom.Object, atom.Embed, atom.Select, atom.Button, atom.Input, atom.Textarea:
		return true
	}
	return false
}

// blockBreaks says how many line breaks surround an element: 2 for
// paragraphs and headings, 1 for other blocks, 0 for inline elements.
func blockBreaks(a atom.Atom) int {
	switch a {
	case atom.P, atom.H1, atom.H2, atom.H3, atom.H4, atom.H5, atom.H6, atom.Blockquote, atom.Pre,
		atom.Ul, atom.Ol, atom.Table, atom.Dl, atom.Figure, atom.Hr, atom.Section, atom.Article, atom.Main,
		atom.Header, atom.Footer, atom.Nav, atom.Aside, atom.Form, atom.Fieldset, atom.Details:
		return 2
	case atom.Div, atom.Li, atom.Tr, atom.Dt, atom.Dd, atom.Br, atom.Figcaption, atom.Address,
		atom.Caption, atom.Summary, atom.Body, atom.Html:
		return 1
	}
	return 0
}

// headingLevel is 1 to 6 for h1 to h6, else 0.
func headingLevel(a atom.Atom) int {
	switch a {
	case atom.H1:
		return 1
	case atom.H2:
		return 2
	case atom.H3:
		return 3
	case atom.H4:
		return 4
	case atom.H5:
		return 5
	case atom.H6:
		return 6
	}
	return 0
}
