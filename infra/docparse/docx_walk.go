package docparse

import (
	"context"
	"encoding/xml"
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/pergola-ai/pergola/domain/errs"
	"github.com/pergola-ai/pergola/domain/knowledge"
)

// docxWalker streams word/document.xml into sections.
type docxWalker struct {
	ctx         context.Context
	levels      map[string]int
	maxSections int

	secs []knowledge.Section
	path []string // heading texts by level, path[0] is the Title
	body strings.Builder

	para     strings.Builder // the paragraph being read
	style    string          // its paragraph style id
	outline  string          // its own outline level, if any
	inText   bool            // inside <w:t>
	skip     int             // depth inside content not shown (fallbacks, deleted text)
	tables   int             // table nesting depth
	cells    []string        // cells of the current row
	cellText []string        // paragraphs of the current cell
}

// read consumes the XML, one token at a time.
func (w *docxWalker) read(d *xml.Decoder) error {
	for {
		tok, err := d.Token()
		if errors.Is(err, io.EOF) {
			return nil
		}
		if err != nil {
			return docxDamaged(err)
		}
		if err := w.token(tok); err != nil {
			return err
		}
	}
}

func (w *docxWalker) token(tok xml.Token) error {
	switch t := tok.(type) {
	case xml.StartElement:
		w.start(t)
	case xml.EndElement:
		return w.end(t.Name.Local)
	case xml.CharData:
		if w.inText && w.skip == 0 {
			w.para.Write(t)
		}
	}
	return nil
}

// hidden are elements whose content is not the document's text: the
// fallback copy of alternate content and tracked deletions.
var hidden = map[string]bool{"Fallback": true, "del": true, "instrText": true}

func (w *docxWalker) start(t xml.StartElement) {
	name := t.Name.Local
	switch {
	case hidden[name]:
		w.skip++
	case name == "t":
		w.inText = true
	case name == "tab":
		w.para.WriteString("\t")
	case name == "br" || name == "cr":
		w.para.WriteString("\n")
	case name == "pStyle":
		w.style = attrVal(t)
	case name == "outlineLvl":
		w.outline = attrVal(t)
	case name == "tbl":
		w.tables++
	case name == "tr" && w.tables == 1:
		w.cells = nil
	case name == "tc" && w.tables == 1:
		w.cellText = nil
	}
}

func (w *docxWalker) end(name string) error {
	switch {
	case hidden[name]:
		w.skip--
	case name == "t":
		w.inText = false
	case name == "p":
		return w.endParagraph()
	case name == "tc" && w.tables == 1:
		w.cells = append(w.cells, strings.Join(w.cellText, " "))
	case name == "tr" && w.tables == 1:
		w.body.WriteString(strings.Join(w.cells, " | ") + "\n")
	case name == "tbl":
		w.tables--
		if w.tables == 0 {
			w.body.WriteString("\n")
		}
	}
	return nil
}

// endParagraph files a paragraph as a heading, a table cell's text or
// body text.
func (w *docxWalker) endParagraph() error {
	if err := w.ctx.Err(); err != nil {
		return fmt.Errorf("docparse: docx: %w", err)
	}
	text := strings.TrimSpace(w.para.String())
	style, outline := w.style, w.outline
	w.para.Reset()
	w.style, w.outline = "", ""
	if w.tables > 0 {
		if text != "" {
			w.cellText = append(w.cellText, text)
		}
		return nil
	}
	if text == "" {
		return nil
	}
	if level, ok := w.level(style, outline); ok {
		return w.heading(level, text)
	}
	w.body.WriteString(text + "\n\n")
	return nil
}

// level is a paragraph's heading level: its own outline level, else its
// style's.
func (w *docxWalker) level(style, outline string) (int, bool) {
	if l, ok := styleLevel("", outline); ok {
		return l, true
	}
	if l, ok := w.levels[style]; ok {
		return l, true
	}
	return builtinLevel(style)
}

// heading closes the current section and starts one under the heading.
func (w *docxWalker) heading(level int, title string) error {
	w.flush()
	if len(w.secs) > w.maxSections {
		return errs.Invalid("file", "the document has more than %d sections; split it into smaller files", w.maxSections)
	}
	if len(w.path) > level {
		w.path = w.path[:level]
	}
	for len(w.path) < level {
		w.path = append(w.path, "")
	}
	w.path = append(w.path, title)
	return nil
}

func (w *docxWalker) flush() {
	text := strings.TrimSpace(w.body.String())
	w.body.Reset()
	if text == "" && len(w.path) == 0 {
		return
	}
	w.secs = append(w.secs, knowledge.Section{Headings: compact(w.path), Text: text})
}

// attrVal is the w:val attribute of an element.
func attrVal(t xml.StartElement) string {
	for _, a := range t.Attr {
		if a.Name.Local == "val" {
			return a.Value
		}
	}
	return ""
}
