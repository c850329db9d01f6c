package knowledge

import (
	"unicode"
	"unicode/utf8"
)

// CountTokens approximates how many tokens an embedding or chat model's
// tokenizer makes of s, cheaply and deterministically, for sizing chunks:
// each CJK character (Han, kana, Hangul) is one token, each run of other
// letters and digits is one token per started four characters (a word of
// 1-4 letters is 1 token, "tokenizer" is 3), each other visible character
// (punctuation, symbols) is one token and whitespace is free. Real
// tokenizers differ by model; this errs on the side of more tokens for
// English, so chunks stay under a model's limit.
func CountTokens(s string) int {
	n := 0
	for _, a := range atomize(s) {
		n += a.tokens
	}
	return n
}

// atom is a piece of text a chunk is never cut inside (except a single
// word longer than a whole chunk): a word, a CJK character, a punctuation
// mark or a run of whitespace.
type atom struct {
	text   string
	tokens int
	space  bool
}

// atomize cuts s into atoms; their texts joined give s back.
func atomize(s string) []atom {
	var out []atom
	for i := 0; i < len(s); {
		r, size := utf8.DecodeRuneInString(s[i:])
		end := i + size
		switch {
		case unicode.IsSpace(r):
			end = scanWhile(s, end, unicode.IsSpace)
			out = append(out, atom{text: s[i:end], space: true})
		case isCJK(r):
			out = append(out, atom{text: s[i:end], tokens: 1})
		case isWordRune(r):
			end = scanWhile(s, end, isWordRune)
			out = append(out, atom{text: s[i:end], tokens: wordTokens(s[i:end])})
		default:
			out = append(out, atom{text: s[i:end], tokens: 1})
		}
		i = end
	}
	return out
}

// scanWhile returns the index after the run of runes from i that match ok.
func scanWhile(s string, i int, ok func(rune) bool) int {
	for i < len(s) {
		r, size := utf8.DecodeRuneInString(s[i:])
		if !ok(r) {
			break
		}
		i += size
	}
	return i
}

// wordTokens is one token per started four characters of a word.
func wordTokens(w string) int {
	return (utf8.RuneCountInString(w) + 3) / 4
}

// isWordRune is a letter, digit or combining mark that is not CJK: the
// runes of a space-separated word.
func isWordRune(r rune) bool {
	if isCJK(r) {
		return false
	}
	return unicode.IsLetter(r) || unicode.IsDigit(r) || unicode.Is(unicode.Mn, r) || r == '_'
}

// isCJK reports the scripts written without spaces between words, where
// tokenizers spend about a token per character.
func isCJK(r rune) bool {
	return unicode.Is(unicode.Han, r) || unicode.Is(unicode.Hiragana, r) ||
		unicode.Is(unicode.Katakana, r) || unicode.Is(unicode.Hangul, r)
}
