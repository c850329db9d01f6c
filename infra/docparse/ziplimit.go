package docparse

import (
	"archive/zip"
	"bytes"
	"errors"
	"io"

	"github.com/pergola-ai/pergola/domain/errs"
)

// openZip opens a docx or xlsx archive and refuses a zip bomb before
// anything is unpacked: the sizes its entries declare may add up to at
// most max. The declared sizes can lie, so entries are read through
// limitedEntry, which stops at the declared size as well.
func openZip(data []byte, max int64, what string) (*zip.Reader, error) {
	zr, err := zip.NewReader(bytes.NewReader(data), int64(len(data)))
	if err != nil {
		return nil, errs.Invalid("file", "the %s file is damaged or not a %s file (%v); save it again and upload it", what, what, err)
	}
	var total uint64
	for _, f := range zr.File {
		total += f.UncompressedSize64
		if f.UncompressedSize64 > uint64(max) || total > uint64(max) {
			return nil, unzipTooLarge(what, max)
		}
	}
	return zr, nil
}

func unzipTooLarge(what string, max int64) error {
	return errs.Invalid("file", "the %s file unpacks to more than %s, which looks like a zip bomb or a very large file; split it into smaller files",
		what, sizeName(max))
}

// limitedEntry opens one archive entry, reading no more than it declares.
func limitedEntry(f *zip.File, what string) (io.ReadCloser, error) {
	rc, err := f.Open()
	if err != nil {
		return nil, errs.Invalid("file", "the %s file is damaged (%s: %v); save it again and upload it", what, f.Name, err)
	}
	return struct {
		io.Reader
		io.Closer
	}{&strictReader{r: rc, left: int64(f.UncompressedSize64), name: f.Name, what: what}, rc}, nil
}

// strictReader fails once an entry gives more bytes than it declared,
// and turns the archive's read errors into ones a person can act on.
type strictReader struct {
	r    io.Reader
	left int64
	name string
	what string
}

func (s *strictReader) Read(b []byte) (int, error) {
	if s.left <= 0 {
		// One byte more than declared is enough to know it lies.
		var one [1]byte
		if n, _ := s.r.Read(one[:]); n > 0 {
			return 0, errs.Invalid("file", "the %s file is damaged: %s is larger than it declares; save it again and upload it", s.what, s.name)
		}
		return 0, io.EOF
	}
	if int64(len(b)) > s.left {
		b = b[:s.left]
	}
	n, err := s.r.Read(b)
	s.left -= int64(n)
	if err != nil && !errors.Is(err, io.EOF) {
		return n, errs.Invalid("file", "the %s file is damaged (%s: %v); save it again and upload it", s.what, s.name, err)
	}
	return n, err
}

// findZipFile returns the named entry or nil.
func findZipFile(zr *zip.Reader, name string) *zip.File {
	for _, f := range zr.File {
		if f.Name == name {
			return f
		}
	}
	return nil
}

// missingPart says a required part of an archive is not there.
func missingPart(what, name string) error {
	return errs.Invalid("file", "the file is not a %s document (%s is missing); save it as %s and upload it again", what, name, what)
}
