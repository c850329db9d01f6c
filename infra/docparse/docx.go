package docparse

import (
	"archive/zip"
	"context"
	"encoding/xml"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"

	"github.com/pergola-ai/pergola/domain/errs"
	"github.com/pergola-ai/pergola/domain/knowledge"
)

// parseDocx reads a Word document's body: paragraphs in order, those in
// Title and Heading 1-9 styles (or with an outline level) as headings,
// tables as rows of cells joined by " | ". The archive is checked for a
// zip bomb first; ctx is honoured between paragraphs.
func (p Parser) parseDocx(ctx context.Context, data []byte) (*knowledge.Parsed, error) {
	zr, err := openZip(data, p.limits().MaxUnzippedBytes, "docx")
	if err != nil {
		return nil, err
	}
	doc := findZipFile(zr, "word/document.xml")
	if doc == nil {
		return nil, missingPart("docx", "word/document.xml")
	}
	levels, err := docxStyleLevels(findZipFile(zr, "word/styles.xml"))
	if err != nil {
		return nil, err
	}
	rc, err := limitedEntry(doc, "docx")
	if err != nil {
		return nil, err
	}
	defer rc.Close()
	w := &docxWalker{ctx: ctx, levels: levels, maxSections: p.limits().MaxSections}
	if err := w.read(xml.NewDecoder(rc)); err != nil {
		return nil, err
	}
	w.flush()
	return textParsed(w.secs, "Word document")
}

// docxStyleLevels maps paragraph style ids to heading levels: 0 for
// Title, n for "heading n" or an outline level of n-1.
func docxStyleLevels(f *zip.File) (map[string]int, error) {
	levels := map[string]int{}
	if f == nil {
		return levels, nil
	}
	rc, err := limitedEntry(f, "docx")
	if err != nil {
		return nil, err
	}
	defer rc.Close()
	var styles struct {
		Styles []struct {
			ID      string   `xml:"styleId,attr"`
			Name    xmlValue `xml:"name"`
			Outline xmlValue `xml:"pPr>outlineLvl"`
		} `xml:"style"`
	}
	if err := xml.NewDecoder(rc).Decode(&styles); err != nil {
		return nil, docxDamaged(err)
	}
	for _, s := range styles.Styles {
		if l, ok := styleLevel(s.Name.Val, s.Outline.Val); ok {
			levels[s.ID] = l
		}
	}
	return levels, nil
}

type xmlValue struct {
	Val string `xml:"val,attr"`
}

// styleLevel is the heading level a style's name or outline level gives.
func styleLevel(name, outline string) (int, bool) {
	name = strings.ToLower(strings.TrimSpace(name))
	if name == "title" {
		return 0, true
	}
	if n, err := strconv.Atoi(strings.TrimPrefix(name, "heading ")); err == nil && strings.HasPrefix(name, "heading ") && n >= 1 && n <= 9 {
		return n, true
	}
	if n, err := strconv.Atoi(outline); err == nil && n >= 0 && n <= 8 {
		return n + 1, true
	}
	return 0, false
}

// builtinLevel reads the level from a style id when styles.xml does not
// name it: Word's built-in ids are Title and Heading1-Heading9.
func builtinLevel(id string) (int, bool) {
	if id == "Title" {
		return 0, true
	}
	if n, err := strconv.Atoi(strings.TrimPrefix(id, "Heading")); err == nil && strings.HasPrefix(id, "Heading") && n >= 1 && n <= 9 {
		return n, true
	}
	return 0, false
}

func docxDamaged(err error) error {
	var fe *errs.FieldError
	if errors.As(err, &fe) {
		return err
	}
	if errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded) {
		return fmt.Errorf("docparse: docx: %w", err)
	}
	if errors.Is(err, io.ErrUnexpectedEOF) || errors.Is(err, io.EOF) {
		return errs.Invalid("file", "the docx file is cut short; save it again and upload it")
	}
	return errs.Invalid("file", "the docx file is damaged (%v); save it again and upload it", err)
}
