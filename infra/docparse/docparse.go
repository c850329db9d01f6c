// Package docparse reads the files a knowledge base is given (text,
// markdown, HTML, PDF, Word, CSV, Excel, JSON) and web pages into
// knowledge.Parsed: text sections with their headings, or a table. Every
// parser is bounded: the bytes read, the pages, rows and sections made
// and the bytes a zip archive unpacks to are capped by Limits, so one
// upload cannot exhaust the memory or the time of the worker.
package docparse

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"strings"
	"unicode/utf8"

	"github.com/pergola-ai/pergola/domain/errs"
	"github.com/pergola-ai/pergola/domain/knowledge"
	"golang.org/x/text/encoding/simplifiedchinese"
)

// Limits bound what one document may cost to parse.
type Limits struct {
	MaxBytes         int64 // the file as uploaded
	MaxPages         int   // pages of a PDF
	MaxRows          int   // rows of a CSV, spreadsheet or JSON array
	MaxUnzippedBytes int64 // what a docx or xlsx archive unpacks to
	MaxSections      int   // heading sections of a text document
}

// DefaultLimits are 50 MiB files, 2000 pages, 100000 rows, 200 MiB
// unpacked and 20000 sections (a section is at least one chunk, and a
// document has at most knowledge.MaxChunksPerDocument).
func DefaultLimits() Limits {
	return Limits{
		MaxBytes:         50 << 20,
		MaxPages:         2000,
		MaxRows:          100000,
		MaxUnzippedBytes: 200 << 20,
		MaxSections:      knowledge.MaxChunksPerDocument,
	}
}

// Parser reads documents within its Limits; a zero limit means the
// default one.
type Parser struct {
	Limits Limits
}

// supported is said in the error for an unknown file type.
const supported = "txt, md, html, pdf, docx, csv, xlsx, json"

// Parse reads a file of the given type, its extension without the dot in
// any case (txt, md or markdown, html or htm, pdf, docx, csv, xlsx, json).
// Errors are errs.Invalid on "file_type" for a type it does not read
// (images included) and on "file" for content it cannot read or that is
// over a limit, each saying what to do; the context's error when ctx ends.
func (p Parser) Parse(ctx context.Context, fileType string, r io.Reader) (*knowledge.Parsed, error) {
	parse, err := p.parserFor(strings.ToLower(strings.TrimPrefix(fileType, ".")))
	if err != nil {
		return nil, err
	}
	if err := ctx.Err(); err != nil {
		return nil, fmt.Errorf("docparse: %w", err)
	}
	data, err := p.read(r)
	if err != nil {
		return nil, err
	}
	return parse(ctx, data)
}

type parseFunc func(ctx context.Context, data []byte) (*knowledge.Parsed, error)

// parserFor picks the parser of a file type.
func (p Parser) parserFor(fileType string) (parseFunc, error) {
	switch fileType {
	case "txt", "text":
		return p.parseText, nil
	case "md", "markdown":
		return p.parseMarkdown, nil
	case "html", "htm":
		return p.parseHTML, nil
	case "pdf":
		return p.parsePDF, nil
	case "docx":
		return p.parseDocx, nil
	case "csv":
		return p.parseCSV, nil
	case "xlsx":
		return p.parseXLSX, nil
	case "json":
		return p.parseJSON, nil
	case "png", "jpg", "jpeg", "gif", "webp", "bmp", "tif", "tiff", "svg", "heic":
		return nil, errs.Invalid("file_type", "%s is an image; image files are kept only in image knowledge bases, not read as text", fileType)
	case "doc", "xls", "ppt", "pptx":
		return nil, errs.Invalid("file_type", "%s files are not read; save the file as docx, xlsx or pdf (supported: %s)", fileType, supported)
	}
	return nil, errs.Invalid("file_type", "%q is not a document type Pergola reads; supported: %s", fileType, supported)
}

// limits returns the limits with defaults for the zero ones.
func (p Parser) limits() Limits {
	l, d := p.Limits, DefaultLimits()
	if l.MaxBytes <= 0 {
		l.MaxBytes = d.MaxBytes
	}
	if l.MaxPages <= 0 {
		l.MaxPages = d.MaxPages
	}
	if l.MaxRows <= 0 {
		l.MaxRows = d.MaxRows
	}
	if l.MaxUnzippedBytes <= 0 {
		l.MaxUnzippedBytes = d.MaxUnzippedBytes
	}
	if l.MaxSections <= 0 {
		l.MaxSections = d.MaxSections
	}
	return l
}

// read takes the whole file, one byte over the limit at most, so an
// oversize file is refused without being held.
func (p Parser) read(r io.Reader) ([]byte, error) {
	max := p.limits().MaxBytes
	data, err := io.ReadAll(io.LimitReader(r, max+1))
	if err != nil {
		return nil, fmt.Errorf("docparse: read the file: %w", err)
	}
	if int64(len(data)) > max {
		return nil, errs.Invalid("file", "file is larger than %s; split it into smaller files", sizeName(max))
	}
	return data, nil
}

// sizeName writes a byte count as people read it.
func sizeName(n int64) string {
	if n >= 1<<20 && n%(1<<20) == 0 {
		return fmt.Sprintf("%d MiB", n>>20)
	}
	if n >= 1<<10 && n%(1<<10) == 0 {
		return fmt.Sprintf("%d KiB", n>>10)
	}
	return fmt.Sprintf("%d bytes", n)
}

// decodeText turns a text file's bytes into a string: UTF-8 (a byte
// order mark dropped), or, when the bytes are not UTF-8, GB18030, the
// encoding Chinese Windows tools save text and CSV in. Line ends become
// "\n".
func decodeText(data []byte) string {
	data = bytes.TrimPrefix(data, []byte("\xef\xbb\xbf"))
	s := string(data)
	if !utf8.Valid(data) {
		if d, err := simplifiedchinese.GB18030.NewDecoder().Bytes(data); err == nil {
			s = string(d)
		} else {
			s = strings.ToValidUTF8(s, "\uFFFD")
		}
	}
	return strings.ReplaceAll(strings.ReplaceAll(s, "\r\n", "\n"), "\r", "\n")
}

// checkSections refuses a document of more heading sections than the
// limit.
func (p Parser) checkSections(n int) error {
	if max := p.limits().MaxSections; n > max {
		return errs.Invalid("file", "the document has more than %d sections; split it into smaller files", max)
	}
	return nil
}

// textParsed wraps sections, dropping those with neither text nor
// heading, and refuses a document with no text at all.
func textParsed(secs []knowledge.Section, what string) (*knowledge.Parsed, error) {
	var out []knowledge.Section
	hasText := false
	for _, s := range secs {
		s.Text = strings.TrimSpace(s.Text)
		if s.Text == "" && len(s.Headings) == 0 {
			continue
		}
		hasText = hasText || s.Text != "" || len(s.Headings) > 0
		out = append(out, s)
	}
	if !hasText {
		return nil, errs.Invalid("file", "the %s has no text", what)
	}
	return &knowledge.Parsed{Sections: out}, nil
}
