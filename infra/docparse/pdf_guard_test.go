package docparse

import (
	"bytes"
	"context"
	"regexp"
	"strings"
	"testing"
)

// pdfWithPages writes a PDF whose page tree node is pagesDict (object 2);
// object 3 is a page with text and object 4 its content.
func pdfWithPages(pagesDict string) []byte {
	return writePDF([]string{
		"<< /Type /Catalog /Pages 2 0 R >>",
		pagesDict,
		"<< /Type /Page /Parent 2 0 R /Contents 4 0 R /Resources << /Font << /F1 5 0 R >> >> >>",
		stream("BT /F1 12 Tf 72 720 Td (page text) Tj ET"),
		"<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>",
	})
}

// selfPrev makes the trailer's /Prev point at its own xref section.
func selfPrev(doc []byte) []byte {
	off := regexp.MustCompile(`startxref\n(\d+)`).FindSubmatch(doc)[1]
	return bytes.Replace(doc, []byte("/Root 1 0 R >>"), []byte("/Root 1 0 R /Prev "+string(off)+" >>"), 1)
}

func TestParsePDFHostile(t *testing.T) {
	small := Parser{Limits: Limits{MaxPages: 3}}
	tests := []struct {
		name   string
		parser Parser
		data   []byte
		says   string
	}{
		{"xref chain that loops", Parser{}, selfPrev(makePDF([][]string{{"x"}})), "in a loop"},
		{"page tree that contains itself", small, pdfWithPages("<< /Type /Pages /Kids [2 0 R] /Count 1 >>"), "page tree loops"},
		{"page tree that contains itself beside a page", small, pdfWithPages("<< /Type /Pages /Kids [3 0 R 2 0 R] /Count 1 >>"), "more than 3 pages"},
		{"page tree with more pages than it counts", small, pdfWithPages("<< /Type /Pages /Kids [3 0 R 3 0 R 3 0 R 3 0 R] /Count 1 >>"), "more than 3 pages"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			// Before the guards these looped forever (go test's timeout
			// would end the run).
			_, err := tt.parser.Parse(context.Background(), "pdf", bytes.NewReader(tt.data))
			wantInvalid(t, err, "file", tt.says)
		})
	}
}

func TestParsePDFPageTree(t *testing.T) {
	got := parse(t, "pdf", pdfWithPages("<< /Type /Pages /Kids [3 0 R 3 0 R] /Count 2 >>"))
	var texts []string
	for _, s := range got.Sections {
		texts = append(texts, s.Text)
	}
	if strings.Join(texts, "|") != "page text|page text" {
		t.Errorf("pages = %q, want the page twice", texts)
	}
}
