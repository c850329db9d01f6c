package plugin

import (
	"bytes"
	"encoding/json"
	"fmt"
	"mime"
	"net/http"
	"regexp"
	"strings"
	"unicode/utf8"
)

// maxResult bounds what a model reads of one tool result, in bytes.
const maxResult = 8000

// maxErrorExcerpt bounds the body quoted in an HTTP error: enough for the
// model to read what the API objects to, short in API errors and logs.
const maxErrorExcerpt = 500

// responseText turns an HTTP answer into what the model reads: the body,
// compacted, for a success; an error naming the status with an excerpt
// of the body otherwise.
func responseText(resp *http.Response, body []byte) (string, error) {
	text := compactBody(resp.Header.Get("Content-Type"), body)
	switch {
	case resp.StatusCode >= 400:
		if text == "" {
			return "", fmt.Errorf("HTTP %s", resp.Status)
		}
		return "", fmt.Errorf("HTTP %s: %s", resp.Status, truncate(text, maxErrorExcerpt))
	case resp.StatusCode >= 300:
		return "", fmt.Errorf("HTTP %s: the API redirected and the redirect was not followed", resp.Status)
	case text == "":
		return fmt.Sprintf("HTTP %s (empty body)", resp.Status), nil
	}
	return truncate(text, maxResult), nil
}

var (
	htmlDrop  = regexp.MustCompile(`(?is)<(script|style|head|noscript)\b.*?</(script|style|head|noscript)>`)
	htmlTag   = regexp.MustCompile(`(?s)<[^>]*>`)
	htmlSpace = regexp.MustCompile(`\s+`)
)

// compactBody renders a body as compact text: JSON without whitespace,
// HTML as its text, other text trimmed, binary described.
func compactBody(contentType string, body []byte) string {
	mt, _, _ := mime.ParseMediaType(contentType)
	trimmed := bytes.TrimSpace(body)
	if len(trimmed) == 0 {
		return ""
	}
	if strings.Contains(mt, "json") || ((trimmed[0] == '{' || trimmed[0] == '[') && json.Valid(trimmed)) {
		var b bytes.Buffer
		if json.Compact(&b, trimmed) == nil {
			return b.String()
		}
	}
	if !utf8.Valid(trimmed) {
		return fmt.Sprintf("(a binary answer of %d bytes, type %s)", len(body), orUnknown(mt))
	}
	if mt == "text/html" || mt == "application/xhtml+xml" {
		s := htmlDrop.ReplaceAllString(string(trimmed), " ")
		s = htmlTag.ReplaceAllString(s, " ")
		return strings.TrimSpace(htmlSpace.ReplaceAllString(unescapeHTML(s), " "))
	}
	return string(trimmed)
}

var htmlEntities = strings.NewReplacer("&amp;", "&", "&lt;", "<", "&gt;", ">", "&quot;", `"`, "&#39;", "'", "&nbsp;", " ")

func unescapeHTML(s string) string { return htmlEntities.Replace(s) }

func orUnknown(s string) string {
	if s == "" {
		return "unknown"
	}
	return s
}

// truncate cuts s to at most n bytes on a rune boundary and says how much
// was left out.
func truncate(s string, n int) string {
	if len(s) <= n {
		return s
	}
	cut := n
	for cut > 0 && !utf8.RuneStart(s[cut]) {
		cut--
	}
	return s[:cut] + fmt.Sprintf("… (truncated; %d bytes in all)", len(s))
}

// excerpt is a short, single-line quote of a body for a message.
func excerpt(body []byte, n int) string {
	return truncate(strings.TrimSpace(htmlSpace.ReplaceAllString(string(body), " ")), n)
}
