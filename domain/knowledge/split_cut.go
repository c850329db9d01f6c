package knowledge

import (
	"strings"
	"unicode"
	"unicode/utf8"
)

// cutParagraphs cuts after each run of blank lines.
func cutParagraphs(s string) []string {
	var parts []string
	start := 0
	for i := 0; i < len(s); i++ {
		if s[i] != '\n' {
			continue
		}
		end := blankRunEnd(s, i)
		if end > 0 {
			parts = append(parts, s[start:end])
			start, i = end, end-1
		}
	}
	return append(parts, s[start:])
}

// blankRunEnd returns where the blank lines starting with the newline at i
// end (after their whitespace), or 0 when no blank line follows.
func blankRunEnd(s string, i int) int {
	j := scanWhile(s, i+1, isHorizontalSpace)
	if j >= len(s) || s[j] != '\n' {
		return 0
	}
	return scanWhile(s, j, unicode.IsSpace)
}

func isHorizontalSpace(r rune) bool { return r != '\n' && unicode.IsSpace(r) }

// cutLines cuts after each newline.
func cutLines(s string) []string {
	return strings.SplitAfter(s, "\n")
}

// cutSentences cuts after each sentence end: . ! ? ; followed by
// whitespace, or the full-width 。！？； and … which need none, with any
// closing quotes or brackets and the whitespace after them.
func cutSentences(s string) []string {
	var parts []string
	start := 0
	for i := 0; i < len(s); {
		r, size := utf8.DecodeRuneInString(s[i:])
		i += size
		if !isSentenceEnd(r) {
			continue
		}
		end := scanWhile(s, i, isCloser)
		if !isFullWidthEnd(r) && end < len(s) && !startsWithSpace(s[end:]) {
			continue
		}
		end = scanWhile(s, end, unicode.IsSpace)
		parts = append(parts, s[start:end])
		start, i = end, end
	}
	if start < len(s) {
		parts = append(parts, s[start:])
	}
	return parts
}

func isSentenceEnd(r rune) bool { return strings.ContainsRune(".!?;。！？；…", r) }

func isFullWidthEnd(r rune) bool { return strings.ContainsRune("。！？；…", r) }

func isCloser(r rune) bool { return strings.ContainsRune("\"')]}”’」』）】》", r) }

func startsWithSpace(s string) bool {
	r, _ := utf8.DecodeRuneInString(s)
	return unicode.IsSpace(r)
}

// cutWords cuts between atoms, each word keeping the whitespace after it.
func cutWords(s string) []string {
	var parts []string
	for _, a := range atomize(s) {
		if a.space && len(parts) > 0 {
			parts[len(parts)-1] += a.text
			continue
		}
		parts = append(parts, a.text)
	}
	return parts
}
