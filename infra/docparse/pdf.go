package docparse

import (
	"bytes"
	"context"
	"fmt"
	"strings"

	"github.com/ledongthuc/pdf"
	"github.com/pergola-ai/pergola/domain/errs"
	"github.com/pergola-ai/pergola/domain/knowledge"
)

// parsePDF reads a PDF's text layer page by page, in page order, one
// section per page with text. It refuses, saying why, a file that is not
// a readable PDF, an encrypted one, one over MaxPages pages and one with
// no text layer (scanned pages are images; no text is recognized in
// them). Between pages it stops when ctx ends.
func (p Parser) parsePDF(ctx context.Context, data []byte) (*knowledge.Parsed, error) {
	r, err := openPDF(data)
	if err != nil {
		return nil, err
	}
	pages, err := pdfPages(r, p.limits().MaxPages)
	if err != nil {
		return nil, err
	}
	var secs []knowledge.Section
	for i, page := range pages {
		if err := ctx.Err(); err != nil {
			return nil, fmt.Errorf("docparse: pdf page %d: %w", i+1, err)
		}
		text, err := pdfPageText(page, i+1)
		if err != nil {
			return nil, err
		}
		secs = append(secs, knowledge.Section{Text: text})
	}
	parsed, err := textParsed(secs, "PDF")
	if err != nil {
		return nil, errs.Invalid("file", "the PDF has no text layer (scanned images are not read); upload a PDF with selectable text or the text itself")
	}
	return parsed, nil
}

// openPDF opens the file, saying in words what is wrong with one that
// cannot be opened. The library reads PDF 1.0-1.7 headers only; PDF 2.0
// files have the same structure, so their header is read as 1.7.
func openPDF(data []byte) (r *pdf.Reader, err error) {
	if err := checkPDFObjects(data); err != nil {
		return nil, err
	}
	if err := checkPDFXrefChain(data); err != nil {
		return nil, err
	}
	if bytes.HasPrefix(data, []byte("%PDF-2.")) {
		data = append([]byte("%PDF-1.7"), data[8:]...)
	}
	defer recoverPDF(&err, "open")
	r, err = pdf.NewReader(bytes.NewReader(data), int64(len(data)))
	if err == nil {
		return r, nil
	}
	if strings.Contains(err.Error(), "encrypt") {
		return nil, errs.Invalid("file", "the PDF is encrypted or password protected; save it without a password and upload it again")
	}
	return nil, errs.Invalid("file", "the file is not a readable PDF (%v); check that it is a complete PDF, or export it again", err)
}

// pdfPageText is one page's text.
func pdfPageText(page pdf.Page, i int) (text string, err error) {
	defer recoverPDF(&err, fmt.Sprintf("read page %d of", i))
	if text = layoutText(page.Content().Text); strings.TrimSpace(text) != "" {
		return text, nil
	}
	// Fall back to the text in stream order for what the layout missed.
	text, err = page.GetPlainText(nil)
	if err != nil {
		return "", errs.Invalid("file", "page %d of the PDF cannot be read (%v); the file may be damaged, export it again", i, err)
	}
	return text, nil
}

// recoverPDF turns a panic of the PDF library on a damaged file into an
// error a person can act on.
func recoverPDF(err *error, doing string) {
	if x := recover(); x != nil {
		*err = errs.Invalid("file", "could not %s the PDF (%v); the file may be damaged, export it again", doing, x)
	}
}
