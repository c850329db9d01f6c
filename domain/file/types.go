package file

import (
	"archive/zip"
	"bytes"
	"net/http"
	"path"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/pergola-ai/pergola/domain/errs"
)

// MaxNameLen bounds a file's name in characters.
const MaxNameLen = 255

// imageTypes are the images models take (OpenAI's list, plus BMP).
var imageTypes = map[string]bool{
	"image/png": true, "image/jpeg": true, "image/gif": true, "image/webp": true, "image/bmp": true,
}

// documentTypes are the other types accepted, as sniffed.
var documentTypes = map[string]bool{
	"application/pdf": true, "text/plain": true, "audio/mpeg": true, "audio/wave": true, "audio/ogg": true,
}

// officeTypes are the Office Open XML documents: ZIP archives told apart
// by their name once the archive is known to be one.
var officeTypes = map[string]string{
	".docx": "application/vnd.openxmlformats-officedocument.wordprocessingml.document",
	".xlsx": "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet",
	".pptx": "application/vnd.openxmlformats-officedocument.presentationml.presentation",
}

// executableExts are names refused whatever the content looks like:
// scripts sniff as text.
var executableExts = map[string]bool{
	".exe": true, ".dll": true, ".msi": true, ".com": true, ".scr": true, ".bat": true, ".cmd": true,
	".ps1": true, ".sh": true, ".bash": true, ".vbs": true, ".jar": true, ".apk": true, ".app": true,
	".so": true, ".dylib": true, ".elf": true, ".bin": true, ".deb": true, ".rpm": true,
}

// IsImageType reports whether mimeType is an image a model can look at.
func IsImageType(mimeType string) bool { return imageTypes[mimeType] }

// Classify sniffs data's type from its bytes and checks it may be stored
// under name. The client's Content-Type is never asked. Errors are
// errs.ErrInvalid naming field "file".
func Classify(name string, data []byte) (string, error) {
	if len(data) == 0 {
		return "", errs.Invalid("file", "is empty; upload a file with content")
	}
	ext := strings.ToLower(path.Ext(name))
	if executableExts[ext] {
		return "", errs.Invalid("file", "%s files are not accepted (executables and scripts are refused)", ext)
	}
	sniffed := http.DetectContentType(data)
	mimeType, _, _ := strings.Cut(sniffed, ";")
	switch {
	case imageTypes[mimeType] || documentTypes[mimeType]:
		return mimeType, nil
	case mimeType == "application/zip" && officeTypes[ext] != "" && isOfficeZip(data):
		return officeTypes[ext], nil
	}
	return "", errs.Invalid("file", "type %s is not accepted; upload an image (png, jpeg, gif, webp, bmp), a PDF, plain text, audio (mp3, wav, ogg) or an Office document (docx, xlsx, pptx)", mimeType)
}

// isOfficeZip reports whether data is a ZIP archive with the content-types
// part every Office Open XML document has.
func isOfficeZip(data []byte) bool {
	r, err := zip.NewReader(bytes.NewReader(data), int64(len(data)))
	if err != nil {
		return false
	}
	for _, f := range r.File {
		if f.Name == "[Content_Types].xml" {
			return true
		}
	}
	return false
}

// CleanName turns the name a client sent into the name kept: the last
// element of a path (SDKs send the path a file was opened by), without
// control characters, at most MaxNameLen characters; "file" when nothing
// is left.
func CleanName(name string) string {
	name = strings.ReplaceAll(name, "\\", "/")
	if i := strings.LastIndex(name, "/"); i >= 0 {
		name = name[i+1:]
	}
	name = strings.Map(func(r rune) rune {
		if unicode.IsControl(r) || r == utf8.RuneError {
			return -1
		}
		return r
	}, name)
	name = strings.TrimSpace(name)
	if utf8.RuneCountInString(name) > MaxNameLen {
		name = string([]rune(name)[:MaxNameLen])
	}
	if name == "" || name == "." || name == ".." {
		return "file"
	}
	return name
}
