package docparse

import (
	"bytes"
	"regexp"
	"strconv"
	"strings"

	"github.com/pergola-ai/pergola/domain/errs"
)

// The PDF library sizes its cross-reference table from numbers in the
// file (/Size, xref subsection headers, /Index of xref streams) before
// reading any object, so a few bytes claiming a billion objects would
// take the memory of the whole worker, which no recover can catch.
// checkPDFObjects refuses such files first.
var (
	pdfSize       = regexp.MustCompile(`/Size\s+(\d+)`)
	pdfSubsection = regexp.MustCompile(`(?m)^[ \t]*(\d+)[ \t]+(\d+)[ \t]*\r?$`)
	pdfIndex      = regexp.MustCompile(`/Index\s*\[([\d\s]*)\]`)
)

// maxPDFObjects is how many objects a file of n bytes may declare: an
// object takes more than a few bytes even compressed, and never more
// than five million (about 160 MB of table).
func maxPDFObjects(n int) int64 {
	return min(max(int64(n)/4, 100000), 5000000)
}

func checkPDFObjects(data []byte) error {
	limit := maxPDFObjects(len(data))
	for _, m := range pdfSize.FindAllSubmatch(data, -1) {
		if tooMany(string(m[1]), "0", limit) {
			return pdfTooManyObjects(limit)
		}
	}
	for _, m := range pdfSubsection.FindAllSubmatch(data, -1) {
		if tooMany(string(m[1]), string(m[2]), limit) {
			return pdfTooManyObjects(limit)
		}
	}
	for _, m := range pdfIndex.FindAllSubmatch(data, -1) {
		f := strings.Fields(string(m[1]))
		for i := 0; i+1 < len(f); i += 2 {
			if tooMany(f[i], f[i+1], limit) {
				return pdfTooManyObjects(limit)
			}
		}
	}
	return nil
}

// tooMany reports whether objects numbered from start, n of them, go
// past limit (numbers too long to parse do).
func tooMany(start, n string, limit int64) bool {
	s, err1 := strconv.ParseInt(start, 10, 64)
	c, err2 := strconv.ParseInt(n, 10, 64)
	return err1 != nil || err2 != nil || s > limit || c > limit || s+c > limit
}

func pdfTooManyObjects(limit int64) error {
	return errs.Invalid("file", "the PDF declares more than %d objects, more than a file of its size can hold; it is damaged or crafted, export it again", limit)
}

var (
	pdfStartXref = regexp.MustCompile(`startxref\s+(\d+)\s*%%EOF\s*$`)
	pdfPrev      = regexp.MustCompile(`/Prev\s+(\d+)`)
)

// checkPDFXrefChain follows the chain of cross-reference sections the
// way the library will (startxref, then each trailer's /Prev) and
// refuses a chain that loops, on which the library would spin forever.
func checkPDFXrefChain(data []byte) error {
	m := pdfStartXref.FindSubmatch(bytes.TrimRight(data, "\r\n\t "))
	if m == nil {
		return nil // the library says what is missing
	}
	seen := map[int64]bool{}
	for off, ok := parseOffset(m[1], len(data)); ok; off, ok = prevOf(data, off) {
		if seen[off] {
			return errs.Invalid("file", "the PDF's cross-reference sections point at each other in a loop; the file is damaged, export it again")
		}
		seen[off] = true
	}
	return nil
}

// prevOf finds the /Prev of the section at off: in the trailer after an
// xref table, or in the dictionary of an xref stream.
func prevOf(data []byte, off int64) (int64, bool) {
	rest := data[off:]
	end := bytes.Index(rest, []byte("startxref"))
	if bytes.HasPrefix(bytes.TrimSpace(rest), []byte("xref")) {
		if t := bytes.Index(rest, []byte("trailer")); t >= 0 && (end < 0 || t < end) {
			rest = rest[t:]
			end = bytes.Index(rest, []byte("startxref"))
		}
	} else if s := bytes.Index(rest, []byte("stream")); s >= 0 {
		end = s
	}
	if end >= 0 {
		rest = rest[:end]
	}
	m := pdfPrev.FindSubmatch(rest)
	if m == nil {
		return 0, false
	}
	return parseOffset(m[1], len(data))
}

// parseOffset reads an offset into a file of n bytes.
func parseOffset(b []byte, n int) (int64, bool) {
	off, err := strconv.ParseInt(string(b), 10, 64)
	return off, err == nil && off >= 0 && off < int64(n)
}
