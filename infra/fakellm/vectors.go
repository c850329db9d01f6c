package fakellm

import (
	"hash/fnv"
	"math"
	"strings"
	"unicode"
)

// The fake's embedding is a hashed bag of words: deterministic, free, and
// good enough that texts sharing words score higher than texts that share
// none, which is all retrieval tests need.

// DefaultDimensions is the length of the fake's vectors when neither the
// request's dimensions nor the model name (see dimensionsFor) says
// otherwise.
const DefaultDimensions = 256

// Embed returns the fake's vector of text with dims components: every
// lowercase word, and every CJK character and pair of adjacent CJK
// characters, is hashed into a bucket; buckets hold term frequencies; the
// vector is L2-normalised. A text without any term gets one bucket for the
// whole text, so no vector is zero.
func Embed(text string, dims int) []float32 {
	v := make([]float64, dims)
	terms := Terms(text)
	if len(terms) == 0 {
		terms = []string{text}
	}
	for _, t := range terms {
		v[bucket(t, dims)]++
	}
	return normalise(v)
}

func bucket(term string, dims int) int {
	h := fnv.New32a()
	_, _ = h.Write([]byte(term))
	return int(h.Sum32() % uint32(dims))
}

func normalise(v []float64) []float32 {
	var sum float64
	for _, x := range v {
		sum += x * x
	}
	norm := math.Sqrt(sum)
	out := make([]float32, len(v))
	for i, x := range v {
		out[i] = float32(x / norm)
	}
	return out
}

// Terms splits text into the fake's terms: lowercase runs of letters and
// digits, and for runs of CJK characters each character and each pair of
// adjacent characters (Chinese has no spaces between words).
func Terms(text string) []string {
	var terms []string
	var word []rune
	var cjk []rune
	flush := func() {
		if len(word) > 0 {
			terms = append(terms, string(word))
			word = word[:0]
		}
		terms = append(terms, cjkTerms(cjk)...)
		cjk = cjk[:0]
	}
	for _, r := range strings.ToLower(text) {
		switch {
		case isCJK(r):
			if len(word) > 0 {
				terms, word = append(terms, string(word)), word[:0]
			}
			cjk = append(cjk, r)
		case unicode.IsLetter(r) || unicode.IsDigit(r):
			terms = append(terms, cjkTerms(cjk)...)
			cjk = cjk[:0]
			word = append(word, r)
		default:
			flush()
		}
	}
	flush()
	return terms
}

func cjkTerms(run []rune) []string {
	var out []string
	for i, r := range run {
		out = append(out, string(r))
		if i+1 < len(run) {
			out = append(out, string(run[i:i+2]))
		}
	}
	return out
}

func isCJK(r rune) bool {
	return unicode.Is(unicode.Han, r) || unicode.Is(unicode.Hiragana, r) ||
		unicode.Is(unicode.Katakana, r) || unicode.Is(unicode.Hangul, r)
}

// Cosine returns the cosine similarity of two vectors of equal length.
func Cosine(a, b []float32) float64 {
	var dot, na, nb float64
	for i := range a {
		dot += float64(a[i]) * float64(b[i])
		na += float64(a[i]) * float64(a[i])
		nb += float64(b[i]) * float64(b[i])
	}
	if na == 0 || nb == 0 {
		return 0
	}
	return dot / math.Sqrt(na*nb)
}
