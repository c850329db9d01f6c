package docparse

import (
	"archive/zip"
	"bytes"
	"compress/flate"
	"context"
	"errors"
	"hash/crc32"
	"strings"
	"sync/atomic"
	"testing"
)

// bombDocx is a docx whose document.xml unpacks to size bytes of one
// repeated paragraph, compressing about a thousand to one.
func bombDocx(t *testing.T, size int) []byte {
	t.Helper()
	p := para("", "boom ")
	return makeDocx(t, strings.Repeat(p, size/len(p)))
}

// lyingDocx is a docx whose document.xml declares 100 bytes but unpacks
// to megabytes, which a check of declared sizes alone would let through.
func lyingDocx(t *testing.T) []byte {
	t.Helper()
	body := []byte(`<w:document ` + wordNS + `><w:body>` + strings.Repeat(para("", "lie"), 200000) + `</w:body></w:document>`)
	var deflated bytes.Buffer
	fw, _ := flate.NewWriter(&deflated, flate.BestCompression)
	fw.Write(body)
	fw.Close()
	var buf bytes.Buffer
	zw := zip.NewWriter(&buf)
	w, err := zw.CreateRaw(&zip.FileHeader{Name: "word/document.xml", Method: zip.Deflate,
		CRC32: crc32.ChecksumIEEE(body), CompressedSize64: uint64(deflated.Len()), UncompressedSize64: 100})
	if err != nil {
		t.Fatal(err)
	}
	w.Write(deflated.Bytes())
	zw.Close()
	return buf.Bytes()
}

func rowsCSV(n int) []byte {
	return []byte("a,b\n" + strings.Repeat("1,2\n", n))
}

func TestParseRefuses(t *testing.T) {
	small := Parser{Limits: Limits{MaxBytes: 1 << 20, MaxPages: 2, MaxRows: 2, MaxUnzippedBytes: 1 << 20, MaxSections: 3}}
	pdfDoc := makePDF([][]string{{"one"}, {"two"}})
	docx := makeDocx(t, para("Heading1", "H")+para("", "text"))
	xlsx := makeXLSX(t, [][]any{{"a"}, {"1"}})
	tests := []struct {
		name     string
		parser   Parser
		fileType string
		data     []byte
		field    string
		says     string
	}{
		{"unknown type", Parser{}, "exe", []byte("MZ"), "file_type", "supported: txt, md, html, pdf, docx, csv, xlsx, json"},
		{"empty type", Parser{}, "", []byte("x"), "file_type", "supported:"},
		{"image", Parser{}, "PNG", []byte("\x89PNG"), "file_type", "image knowledge"},
		{"legacy word", Parser{}, "doc", []byte("x"), "file_type", "save the file as docx"},
		{"oversize file", small, "txt", bytes.Repeat([]byte("a"), 1<<20+1), "file", "file is larger than 1 MiB"},
		{"oversize by default", Parser{}, "txt", make([]byte, 50<<20+1), "file", "file is larger than 50 MiB"},
		{"empty text", Parser{}, "txt", []byte(" \n "), "file", "has no text"},
		{"too many markdown sections", small, "md", []byte("# a\n# b\n# c\n# d\n# e\n"), "file", "more than 3 sections"},
		{"too many html sections", small, "html", []byte("<h1>a</h1><h1>b</h1><h1>c</h1><h1>d</h1><h1>e</h1>"), "file", "more than 3 sections"},
		{"too many docx sections", small, "docx", makeDocx(t, strings.Repeat(para("Heading1", "h")+para("", "x"), 6)), "file", "more than 3 sections"},
		{"too many csv rows", small, "csv", rowsCSV(3), "file", "more than 2 rows"},
		{"too many xlsx rows", small, "xlsx", makeXLSX(t, [][]any{{"a"}, {1}, {2}, {3}}), "file", "more than 2 rows"},
		{"too many json objects", small, "json", []byte(`[{"a":1},{"a":2},{"a":3}]`), "file", "more than 2"},
		{"empty csv", Parser{}, "csv", []byte("\n,\n"), "file", "is empty"},
		{"invalid json", Parser{}, "json", []byte(`{"a":`), "file", "not valid JSON"},
		{"too many pdf pages", small, "pdf", makePDF([][]string{{"1"}, {"2"}, {"3"}}), "file", "3 pages, more than 2"},
		{"pdf without text", Parser{}, "pdf", makePDF([][]string{{}, {""}}), "file", "no text layer (scanned images are not read)"},
		{"pdf truncated", Parser{}, "pdf", pdfDoc[:len(pdfDoc)/2], "file", "not a readable PDF"},
		{"pdf with a broken xref", Parser{}, "pdf", bytes.Replace(pdfDoc, []byte("xref\n0 "), []byte("xref\nX "), 1), "file", "PDF"},
		{"pdf claiming a billion objects in its trailer", Parser{}, "pdf", bytes.Replace(pdfDoc, []byte("/Size "), []byte("/Size 1000000000 /X "), 1), "file", "declares more than 100000 objects"},
		{"pdf claiming a billion objects in its xref", Parser{}, "pdf", bytes.Replace(pdfDoc, []byte("xref\n0 "), []byte("xref\n999999999 1\n0000000000 00000 n \n0 "), 1), "file", "declares more than"},
		{"pdf xref stream index out of range", Parser{}, "pdf", bytes.Replace(pdfDoc, []byte("/Type /Catalog"), []byte("/Index [0 5 4000000000 2] /Type /Catalog"), 1), "file", "declares more than"},
		{"not a pdf", Parser{}, "pdf", []byte("hello"), "file", "not a readable PDF"},
		{"docx zip bomb", small, "docx", bombDocx(t, 2<<20), "file", "unpacks to more than 1 MiB"},
		{"docx lying about its size", Parser{}, "docx", lyingDocx(t), "file", "damaged"},
		{"docx truncated", Parser{}, "docx", docx[:len(docx)-30], "file", "damaged or not a docx"},
		{"docx without a body", Parser{}, "docx", makeZip(t, map[string]string{"a.txt": "x"}), "file", "word/document.xml is missing"},
		{"docx with broken xml", Parser{}, "docx", makeZip(t, map[string]string{"word/document.xml": "<w:document><w:body><w:p>"}), "file", "damaged (XML syntax error"},
		{"xlsx zip bomb", small, "xlsx", makeZip(t, map[string]string{"xl/worksheets/sheet1.xml": strings.Repeat("<row/>", 400000)}), "file", "unpacks to more than 1 MiB"},
		{"xlsx truncated", Parser{}, "xlsx", xlsx[:len(xlsx)/2], "file", "xlsx"},
		{"xlsx that is not a workbook", Parser{}, "xlsx", []byte("plain text"), "file", "xlsx"},
		{"xlsx zip of something else", Parser{}, "xlsx", makeZip(t, map[string]string{"a.txt": "x"}), "file", "xlsx"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := tt.parser.Parse(context.Background(), tt.fileType, bytes.NewReader(tt.data))
			if err == nil {
				t.Fatalf("Parse gave %+v, want an error", got)
			}
			wantInvalid(t, err, tt.field, tt.says)
		})
	}
}

// countdown is a context that ends after its Err was asked n times, so a
// test can end it between a parser's steps.
type countdown struct {
	context.Context
	left atomic.Int32
}

func (c *countdown) Err() error {
	if c.left.Add(-1) < 0 {
		return context.Canceled
	}
	return nil
}

func TestParseCancelled(t *testing.T) {
	tests := []struct {
		name     string
		fileType string
		data     []byte
		checks   int32
		says     string
	}{
		{"before reading", "txt", []byte("x"), 0, "docparse"},
		{"between pdf pages", "pdf", makePDF([][]string{{"1"}, {"2"}, {"3"}}), 2, "pdf page 2"},
		{"between docx paragraphs", "docx", makeDocx(t, para("", "a")+para("", "b")), 2, "docx"},
		{"between csv rows", "csv", rowsCSV(3000), 2, "row 1001"},
		{"between xlsx rows", "xlsx", makeXLSX(t, [][]any{{"a"}, {1}}), 1, "sheet Sheet1 row 1"},
		{"between json objects", "json", []byte(`[{"a":1}]`), 1, "json object 1"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ctx := &countdown{Context: context.Background()}
			ctx.left.Store(tt.checks)
			_, err := Parser{}.Parse(ctx, tt.fileType, bytes.NewReader(tt.data))
			if !errors.Is(err, context.Canceled) || !strings.Contains(err.Error(), tt.says) {
				t.Fatalf("Parse error = %v, want context.Canceled saying %q", err, tt.says)
			}
		})
	}
}
