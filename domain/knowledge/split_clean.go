package knowledge

import (
	"regexp"
	"strings"
	"unicode"
)

// urlOrEmail matches web addresses (with a scheme or starting www.) and
// e-mail addresses. Only ASCII is taken, so Chinese text written right
// after an address stays.
var urlOrEmail = regexp.MustCompile(`(?i)(?:\b(?:https?|ftp)://|\bwww\.)[A-Za-z0-9\-._~:/?#\[\]@!$&'*+,;=%()]+|[A-Za-z0-9._%+\-]+@[A-Za-z0-9\-]+(?:\.[A-Za-z0-9\-]+)*\.[A-Za-z]{2,}`)

// clean applies the strategy's optional cleaning.
func clean(text string, s ChunkStrategy) string {
	if s.RemoveURLsEmails {
		text = removeURLsEmails(text)
	}
	if s.RemoveExtraSpaces {
		text = collapseSpaces(text)
	}
	return text
}

// removeURLsEmails drops addresses but keeps punctuation that ended the
// sentence right after one ("see https://x.org." keeps the full stop).
func removeURLsEmails(text string) string {
	return urlOrEmail.ReplaceAllStringFunc(text, func(m string) string {
		trimmed := strings.TrimRight(m, ".,;:!?)'")
		return m[len(trimmed):]
	})
}

// collapseSpaces turns every run of whitespace into one newline when the
// run holds a line break, else into one space.
func collapseSpaces(text string) string {
	var b strings.Builder
	run, newline := false, false
	for _, r := range text {
		if unicode.IsSpace(r) {
			run = true
			newline = newline || r == '\n'
			continue
		}
		if run {
			b.WriteString(spaceFor(newline))
			run, newline = false, false
		}
		b.WriteRune(r)
	}
	return strings.TrimSpace(b.String())
}

func spaceFor(newline bool) string {
	if newline {
		return "\n"
	}
	return " "
}

// autoClean is automatic mode's cleaning: trailing spaces go, runs of
// spaces and tabs become one space and more than one blank line becomes
// one, keeping paragraphs apart.
func autoClean(text string) string {
	lines := strings.Split(strings.ReplaceAll(text, "\r\n", "\n"), "\n")
	var b strings.Builder
	blank := 0
	for _, line := range lines {
		line = strings.Join(strings.Fields(line), " ")
		if line == "" {
			blank++
			continue
		}
		if b.Len() > 0 {
			b.WriteString(strings.Repeat("\n", min(blank, 1)+1))
		}
		blank = 0
		b.WriteString(line)
	}
	return b.String()
}
