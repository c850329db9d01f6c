package docparse

import (
	"bytes"
	"context"
	"fmt"
	"io"

	"github.com/pergola-ai/pergola/domain/errs"
	"github.com/pergola-ai/pergola/domain/knowledge"
	"golang.org/x/net/html"
	"golang.org/x/net/html/atom"
)

// parseHTML reads an HTML file's visible text; headings h1-h6 start
// sections with their heading path.
func (p Parser) parseHTML(_ context.Context, data []byte) (*knowledge.Parsed, error) {
	doc, err := html.Parse(bytes.NewReader(data))
	if err != nil {
		return nil, errs.Invalid("file", "the HTML file cannot be read: %v", err)
	}
	return p.htmlSections(doc, dropAlways, "HTML file")
}

// Readable reads a web page's main text, as a reader view would: the
// <article>, else the <main> (or role="main") element, else the body, in
// each case without scripts, styles, navigation, headers, footers, side
// bars and forms. pageURL names the page in errors. Errors are
// errs.Invalid on "file" for a page over the size limit or without text.
func (p Parser) Readable(ctx context.Context, r io.Reader, pageURL string) (*knowledge.Parsed, error) {
	if err := ctx.Err(); err != nil {
		return nil, fmt.Errorf("docparse: %w", err)
	}
	data, err := p.read(r)
	if err != nil {
		return nil, err
	}
	doc, err := html.Parse(bytes.NewReader(data))
	if err != nil {
		return nil, errs.Invalid("file", "the page %s cannot be read: %v", pageURL, err)
	}
	return p.htmlSections(mainContent(doc), dropBoilerplate, "page "+pageURL)
}

// What is never text: code, styles and navigation; dropBoilerplate adds
// the parts of a page around its article.
var (
	dropAlways = map[atom.Atom]bool{
		atom.Script: true, atom.Style: true, atom.Nav: true, atom.Noscript: true,
		atom.Template: true, atom.Svg: true, atom.Head: true, atom.Iframe: true,
	}
	dropBoilerplate = map[atom.Atom]bool{
		atom.Script: true, atom.Style: true, atom.Nav: true, atom.Noscript: true,
		atom.Template: true, atom.Svg: true, atom.Head: true, atom.Iframe: true,
		atom.Header: true, atom.Footer: true, atom.Aside: true, atom.Form: true,
		atom.Button: true,
	}
)

// mainContent finds the element a reader view would show.
func mainContent(doc *html.Node) *html.Node {
	for _, ok := range []func(*html.Node) bool{
		func(n *html.Node) bool { return n.DataAtom == atom.Article },
		func(n *html.Node) bool { return n.DataAtom == atom.Main || attr(n, "role") == "main" },
		func(n *html.Node) bool { return n.DataAtom == atom.Body },
	} {
		if n := find(doc, ok); n != nil {
			return n
		}
	}
	return doc
}

// find returns the first element in document order that ok accepts.
func find(n *html.Node, ok func(*html.Node) bool) *html.Node {
	if n.Type == html.ElementNode && ok(n) {
		return n
	}
	for c := n.FirstChild; c != nil; c = c.NextSibling {
		if f := find(c, ok); f != nil {
			return f
		}
	}
	return nil
}

func attr(n *html.Node, key string) string {
	for _, a := range n.Attr {
		if a.Key == key {
			return a.Val
		}
	}
	return ""
}

// htmlSections walks the tree under root into sections.
func (p Parser) htmlSections(root *html.Node, drop map[atom.Atom]bool, what string) (*knowledge.Parsed, error) {
	w := &htmlWalker{drop: drop}
	w.walk(root)
	w.flush()
	if err := p.checkSections(len(w.secs)); err != nil {
		return nil, err
	}
	return textParsed(w.secs, what)
}
