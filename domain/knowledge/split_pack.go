package knowledge

import (
	"strings"
	"unicode"
	"unicode/utf8"
)

// unit is a stretch of text the packer keeps whole, with its tokens.
type unit struct {
	text   string
	tokens int
}

// cutters cut text at ever finer boundaries: paragraphs, lines, sentences,
// words. Each returns contiguous parts that join to its input, the
// boundary kept at the end of the part before it.
var cutters = []func(string) []string{cutParagraphs, cutLines, cutSentences, cutWords}

// units cuts text into contiguous units of at most max tokens, each as
// coarse as fits: a whole paragraph, else its lines, sentences, words, and
// for a word longer than max, slices of it.
func units(text string, max int) []unit {
	return fit(nil, text, max, 0)
}

func fit(out []unit, s string, max, level int) []unit {
	if t := CountTokens(s); t <= max {
		return append(out, unit{text: s, tokens: t})
	}
	if level == len(cutters) {
		return append(out, cutLongWord(s, max)...)
	}
	for _, part := range cutters[level](s) {
		out = fit(out, part, max, level+1)
	}
	return out
}

// pack joins units into chunks of at most max tokens; every chunk after
// the first starts with up to overlap tokens from the end of the one
// before (fewer when the next unit would not fit otherwise). Chunks are
// trimmed; empty ones are dropped.
func pack(us []unit, max, overlap int) []string {
	var chunks []string
	var cur strings.Builder
	curTokens, fresh := 0, 0
	for _, u := range us {
		if fresh > 0 && curTokens+u.tokens > max {
			prev := cur.String()
			chunks = appendTrimmed(chunks, prev)
			tail := tailOf(prev, min(overlap, max-u.tokens))
			cur.Reset()
			cur.WriteString(tail)
			curTokens, fresh = CountTokens(tail), 0
		}
		cur.WriteString(u.text)
		curTokens += u.tokens
		fresh += u.tokens
	}
	if fresh > 0 {
		chunks = appendTrimmed(chunks, cur.String())
	}
	return chunks
}

func appendTrimmed(chunks []string, s string) []string {
	if s = strings.TrimSpace(s); s != "" {
		chunks = append(chunks, s)
	}
	return chunks
}

// tailOf returns the end of s worth at most n tokens, starting at a word
// boundary.
func tailOf(s string, n int) string {
	if n <= 0 {
		return ""
	}
	atoms := atomize(s)
	start, sum := len(s), 0
	for i := len(atoms) - 1; i >= 0; i-- {
		if sum+atoms[i].tokens > n {
			break
		}
		sum += atoms[i].tokens
		start -= len(atoms[i].text)
	}
	return strings.TrimLeftFunc(s[start:], startsNoChunk)
}

// startsNoChunk is what a chunk should not start with: whitespace, or
// punctuation that closed a sentence of the chunk before.
func startsNoChunk(r rune) bool {
	return unicode.IsSpace(r) || unicode.IsPunct(r) && !isCJK(r)
}

// cutLongWord slices a word longer than a chunk (only a run of letters
// or digits can be: CJK characters and punctuation are a token each) into
// pieces of max tokens, four characters a token: the only place a word is
// cut.
func cutLongWord(s string, max int) []unit {
	var out []unit
	for s != "" {
		end := runePrefix(s, max*4)
		out = append(out, unit{text: s[:end], tokens: CountTokens(s[:end])})
		s = s[end:]
	}
	return out
}

// runePrefix is the byte length of the first n runes of s.
func runePrefix(s string, n int) int {
	i := 0
	for ; n > 0 && i < len(s); n-- {
		_, size := utf8.DecodeRuneInString(s[i:])
		i += size
	}
	return i
}
