package knowledgestore

import (
	"strings"
	"unicode"
	"unicode/utf8"
)

// MaxTermBytes bounds a term's length so that it fits an indexed column;
// longer words are cut (at a rune boundary) and still match themselves.
const MaxTermBytes = 64

// isCJK reports whether r belongs to a script written without spaces
// between words, which is indexed by character pairs instead of words.
func isCJK(r rune) bool {
	return unicode.In(r, unicode.Han, unicode.Hiragana, unicode.Katakana, unicode.Hangul)
}

func isWordRune(r rune) bool {
	return unicode.IsLetter(r) || unicode.IsNumber(r) || unicode.IsMark(r)
}

// run is a maximal stretch of word characters of one kind.
type run struct {
	text string
	cjk  bool
}

// runs cuts text into lower-cased runs of word characters, CJK apart from
// the rest.
func runs(text string) []run {
	var out []run
	var b strings.Builder
	cur := false
	flush := func() {
		if b.Len() > 0 {
			out = append(out, run{text: b.String(), cjk: cur})
			b.Reset()
		}
	}
	for _, r := range strings.ToLower(text) {
		switch {
		case !isWordRune(r):
			flush()
		case isCJK(r) != cur:
			flush()
			cur = isCJK(r)
			b.WriteRune(r)
		default:
			b.WriteRune(r)
		}
	}
	flush()
	return out
}

// IndexTerms returns the terms a chunk's text is indexed under, in order
// and with repeats (term frequency counts them): lower-cased words, and
// for CJK every character and every pair of adjacent characters, so that
// one- and two-character words and longer ones (through their pairs) match.
func IndexTerms(text string) []string {
	var out []string
	for _, r := range runs(text) {
		if !r.cjk {
			out = append(out, cut(r.text))
			continue
		}
		rs := []rune(r.text)
		for i := range rs {
			out = append(out, string(rs[i]))
			if i+1 < len(rs) {
				out = append(out, string(rs[i:i+2]))
			}
		}
	}
	return out
}

// QueryTerms returns the distinct terms a query searches for: words, and
// for CJK the pairs of adjacent characters (a single character alone).
func QueryTerms(query string) []string {
	seen := map[string]bool{}
	var out []string
	add := func(t string) {
		if !seen[t] {
			seen[t] = true
			out = append(out, t)
		}
	}
	for _, r := range runs(query) {
		rs := []rune(r.text)
		if !r.cjk || len(rs) == 1 {
			add(cut(r.text))
			continue
		}
		for i := 0; i+1 < len(rs); i++ {
			add(string(rs[i : i+2]))
		}
	}
	return out
}

func cut(term string) string {
	if len(term) <= MaxTermBytes {
		return term
	}
	n := MaxTermBytes
	for n > 0 && !utf8.RuneStart(term[n]) {
		n--
	}
	return term[:n]
}
