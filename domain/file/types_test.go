package file

import (
	"archive/zip"
	"bytes"
	"errors"
	"strings"
	"testing"

	"github.com/pergola-ai/pergola/domain/errs"
)

func officeZip(t *testing.T, withContentTypes bool) []byte {
	t.Helper()
	var b bytes.Buffer
	w := zip.NewWriter(&b)
	name := "word/document.xml"
	if withContentTypes {
		name = "[Content_Types].xml"
	}
	f, err := w.Create(name)
	if err != nil {
		t.Fatal(err)
	}
	_, _ = f.Write([]byte("<Types/>"))
	_ = w.Close()
	return b.Bytes()
}

func TestClassify(t *testing.T) {
	accepted := []struct{ name, data, want string }{
		{"a.png", "\x89PNG\r\n\x1a\nrest", "image/png"},
		{"photo", "\xff\xd8\xff\xe0rest", "image/jpeg"},
		{"a.gif", "GIF89a....", "image/gif"},
		{"doc.pdf", "%PDF-1.7\n", "application/pdf"},
		{"notes.csv", "a,b\n1,2\n", "text/plain"},
		{"report.docx", string(officeZip(t, true)), "application/vnd.openxmlformats-officedocument.wordprocessingml.document"},
	}
	for _, c := range accepted {
		got, err := Classify(c.name, []byte(c.data))
		if err != nil || got != c.want {
			t.Errorf("Classify(%q) = %q, %v; want %q", c.name, got, err, c.want)
		}
	}
	refused := []struct{ name, data, why string }{
		{"a.txt", "", "empty"},
		{"prog", "\x7fELF\x02\x01\x01\x00\x00\x00", "application/octet-stream is not accepted"},
		{"setup.exe", "MZ\x90\x00", ".exe files"},
		{"install.sh", "#!/bin/sh\necho hi\n", ".sh files"},
		{"page.txt", "<html><body>x</body></html>", "text/html is not accepted"},
		{"archive.zip", string(officeZip(t, true)), "application/zip is not accepted"},
		{"fake.docx", string(officeZip(t, false)), "application/zip is not accepted"},
	}
	for _, c := range refused {
		_, err := Classify(c.name, []byte(c.data))
		if !errors.Is(err, errs.ErrInvalid) || !strings.Contains(err.Error(), c.why) {
			t.Errorf("Classify(%q) = %v; want ErrInvalid saying %q", c.name, err, c.why)
		}
	}
}

func TestCleanName(t *testing.T) {
	cases := map[string]string{
		"/home/me/cat.png":       "cat.png",
		`C:\Users\me\cat.png`:    "cat.png",
		"../../etc/passwd":       "passwd",
		"a\x00b\nc.txt":          "abc.txt",
		"":                       "file",
		"..":                     "file",
		strings.Repeat("é", 300): strings.Repeat("é", MaxNameLen),
	}
	for in, want := range cases {
		if got := CleanName(in); got != want {
			t.Errorf("CleanName(%q) = %q, want %q", in, got, want)
		}
	}
}
