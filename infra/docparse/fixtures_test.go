package docparse

import (
	"archive/zip"
	"bytes"
	"fmt"
	"sort"
	"strings"
	"testing"

	"github.com/xuri/excelize/v2"
)

// makeZip writes an archive of the given files, in name order.
func makeZip(t *testing.T, files map[string]string) []byte {
	t.Helper()
	var buf bytes.Buffer
	zw := zip.NewWriter(&buf)
	names := make([]string, 0, len(files))
	for n := range files {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, n := range names {
		w, err := zw.Create(n)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := w.Write([]byte(files[n])); err != nil {
			t.Fatal(err)
		}
	}
	if err := zw.Close(); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

const wordNS = `xmlns:w="http://schemas.openxmlformats.org/wordprocessingml/2006/main" xmlns:mc="http://schemas.openxmlformats.org/markup-compatibility/2006"`

// makeDocx writes a Word document whose body is the given
// WordprocessingML, with styles that name Heading1 "heading 1" and so on,
// and a localized style id ("标题2") that Word uses in Chinese.
func makeDocx(t *testing.T, body string) []byte {
	t.Helper()
	styles := `<?xml version="1.0" encoding="UTF-8" standalone="yes"?><w:styles ` + wordNS + `>` +
		`<w:style w:type="paragraph" w:styleId="Title"><w:name w:val="Title"/></w:style>` +
		`<w:style w:type="paragraph" w:styleId="Heading1"><w:name w:val="heading 1"/><w:pPr><w:outlineLvl w:val="0"/></w:pPr></w:style>` +
		`<w:style w:type="paragraph" w:styleId="标题2"><w:name w:val="heading 2"/></w:style>` +
		`<w:style w:type="paragraph" w:styleId="Normal"><w:name w:val="Normal"/></w:style></w:styles>`
	return makeZip(t, map[string]string{
		"[Content_Types].xml": `<?xml version="1.0" encoding="UTF-8"?><Types xmlns="http://schemas.openxmlformats.org/package/2006/content-types">` +
			`<Default Extension="rels" ContentType="application/vnd.openxmlformats-package.relationships+xml"/>` +
			`<Default Extension="xml" ContentType="application/xml"/>` +
			`<Override PartName="/word/document.xml" ContentType="application/vnd.openxmlformats-officedocument.wordprocessingml.document.main+xml"/></Types>`,
		"_rels/.rels": `<?xml version="1.0" encoding="UTF-8"?><Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships">` +
			`<Relationship Id="rId1" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/officeDocument" Target="word/document.xml"/></Relationships>`,
		"word/document.xml": `<?xml version="1.0" encoding="UTF-8" standalone="yes"?><w:document ` + wordNS + `><w:body>` + body + `</w:body></w:document>`,
		"word/styles.xml":   styles,
	})
}

// para is a WordprocessingML paragraph in a style ("" for none) whose
// runs are the given texts.
func para(style string, runs ...string) string {
	var b strings.Builder
	b.WriteString("<w:p>")
	if style != "" {
		fmt.Fprintf(&b, `<w:pPr><w:pStyle w:val="%s"/></w:pPr>`, style)
	}
	for _, r := range runs {
		fmt.Fprintf(&b, `<w:r><w:t xml:space="preserve">%s</w:t></w:r>`, r)
	}
	b.WriteString("</w:p>")
	return b.String()
}

// makeXLSX writes a workbook whose first sheet holds rows.
func makeXLSX(t *testing.T, rows [][]any) []byte {
	t.Helper()
	f := excelize.NewFile()
	defer f.Close()
	for i, row := range rows {
		cell, _ := excelize.CoordinatesToCellName(1, i+1)
		if err := f.SetSheetRow("Sheet1", cell, &row); err != nil {
			t.Fatal(err)
		}
	}
	f.NewSheet("Second")
	f.SetCellValue("Second", "A1", "not read")
	buf, err := f.WriteToBuffer()
	if err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

// makePDF writes a PDF with one page per entry, each line drawn 14
// points below the one before ("" leaves a line empty). Lines with
// characters beyond ASCII use a Type0 font whose ToUnicode map gives
// them back, as real CJK PDFs do.
func makePDF(pages [][]string) []byte {
	cids := cidMap(pages)
	var objs []string
	add := func(s string) int { objs = append(objs, s); return len(objs) }
	add("<< /Type /Catalog /Pages 2 0 R >>")
	add("") // the page tree, written once the pages are known
	add("<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica /Encoding /WinAnsiEncoding >>")
	add("<< /Type /Font /Subtype /Type0 /BaseFont /STSong-Light /Encoding /Identity-H /DescendantFonts [5 0 R] /ToUnicode 6 0 R >>")
	add("<< /Type /Font /Subtype /CIDFontType0 /BaseFont /STSong-Light /CIDSystemInfo << /Registry (Adobe) /Ordering (Identity) /Supplement 0 >> >>")
	add(stream(toUnicode(cids)))
	var kids []string
	for _, lines := range pages {
		content := add(stream(pageContent(lines, cids)))
		page := add(fmt.Sprintf("<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Resources << /Font << /F1 3 0 R /F2 4 0 R >> >> /Contents %d 0 R >>", content))
		kids = append(kids, fmt.Sprintf("%d 0 R", page))
	}
	objs[1] = fmt.Sprintf("<< /Type /Pages /Kids [%s] /Count %d >>", strings.Join(kids, " "), len(kids))
	return writePDF(objs)
}

// writePDF lays out numbered objects with a correct cross-reference
// table.
func writePDF(objs []string) []byte {
	var b bytes.Buffer
	b.WriteString("%PDF-1.4\n")
	offsets := make([]int, len(objs))
	for i, o := range objs {
		offsets[i] = b.Len()
		fmt.Fprintf(&b, "%d 0 obj\n%s\nendobj\n", i+1, o)
	}
	xref := b.Len()
	fmt.Fprintf(&b, "xref\n0 %d\n0000000000 65535 f \n", len(objs)+1)
	for _, off := range offsets {
		fmt.Fprintf(&b, "%010d 00000 n \n", off)
	}
	fmt.Fprintf(&b, "trailer\n<< /Size %d /Root 1 0 R >>\nstartxref\n%d\n%%%%EOF\n", len(objs)+1, xref)
	return b.Bytes()
}

func stream(data string) string {
	return fmt.Sprintf("<< /Length %d >>\nstream\n%s\nendstream", len(data), data)
}

func pageContent(lines []string, cids map[rune]int) string {
	var b strings.Builder
	b.WriteString("BT\n72 720 Td\n")
	for _, line := range lines {
		switch {
		case line == "":
		case isASCII(line):
			fmt.Fprintf(&b, "/F1 12 Tf (%s) Tj\n", strings.NewReplacer(`(`, `\(`, `)`, `\)`).Replace(line))
		default:
			b.WriteString("/F2 12 Tf <")
			for _, r := range line {
				fmt.Fprintf(&b, "%04X", cids[r])
			}
			b.WriteString("> Tj\n")
		}
		b.WriteString("0 -14 Td\n")
	}
	b.WriteString("ET")
	return b.String()
}

// cidMap numbers the runes of the non-ASCII lines from 1.
func cidMap(pages [][]string) map[rune]int {
	cids := map[rune]int{}
	for _, lines := range pages {
		for _, line := range lines {
			if isASCII(line) {
				continue
			}
			for _, r := range line {
				if cids[r] == 0 {
					cids[r] = len(cids) + 1
				}
			}
		}
	}
	return cids
}

func toUnicode(cids map[rune]int) string {
	var b strings.Builder
	b.WriteString("/CIDInit /ProcSet findresource begin\n12 dict begin\nbegincmap\n/CMapName /Test def\n/CMapType 2 def\n")
	b.WriteString("1 begincodespacerange\n<0000> <FFFF>\nendcodespacerange\n")
	fmt.Fprintf(&b, "%d beginbfchar\n", len(cids))
	for r, c := range cids {
		fmt.Fprintf(&b, "<%04X> <%04X>\n", c, r)
	}
	b.WriteString("endbfchar\nendcmap\nCMapName currentdict /CMap defineresource pop\nend\nend")
	return b.String()
}

func isASCII(s string) bool {
	for _, r := range s {
		if r > 126 {
			return false
		}
	}
	return true
}
