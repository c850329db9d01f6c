package knowledge

import (
	"unicode/utf8"

	"github.com/pergola-ai/pergola/domain/errs"
)

// The bounds of a chunk strategy.
const (
	DefaultMaxTokens   = 800
	MinMaxTokens       = 100
	MaxMaxTokens       = 5000
	DefaultSeparator   = "\n\n"
	MaxSeparatorLength = 64
)

// Normalize returns the strategy with its defaults filled in (MaxTokens
// 800; Overlap 10% of MaxTokens under auto; Separator "\n\n" under custom)
// or an errs.Invalid naming the Coze field that is wrong: chunk_type
// (0, 1 or 2), max_tokens (100-5000), overlap (0 up to less than half of
// max_tokens) or separator (at most 64 characters).
func (s ChunkStrategy) Normalize() (ChunkStrategy, error) {
	if s.Type != ChunkAuto && s.Type != ChunkCustom && s.Type != ChunkMarkdown {
		return s, errs.Invalid("chunk_strategy.chunk_type",
			"is %d; use 0 (automatic), 1 (custom separator) or 2 (markdown headings)", s.Type)
	}
	if s.MaxTokens == 0 {
		s.MaxTokens = DefaultMaxTokens
	}
	if s.MaxTokens < MinMaxTokens || s.MaxTokens > MaxMaxTokens {
		return s, errs.Invalid("chunk_strategy.max_tokens",
			"is %d; give a number from %d to %d", s.MaxTokens, MinMaxTokens, MaxMaxTokens)
	}
	if s.Overlap == 0 && s.Type == ChunkAuto {
		s.Overlap = s.MaxTokens / 10
	}
	if s.Overlap < 0 || s.Overlap*2 >= s.MaxTokens {
		return s, errs.Invalid("chunk_strategy.overlap",
			"is %d; give 0 or more and less than half of max_tokens (%d)", s.Overlap, s.MaxTokens)
	}
	return s.normalizeSeparator()
}

// normalizeSeparator defaults and bounds the custom separator; other
// types keep whatever was given, unused.
func (s ChunkStrategy) normalizeSeparator() (ChunkStrategy, error) {
	if s.Type != ChunkCustom {
		return s, nil
	}
	if s.Separator == "" {
		s.Separator = DefaultSeparator
	}
	if n := utf8.RuneCountInString(s.Separator); n > MaxSeparatorLength {
		return s, errs.Invalid("chunk_strategy.separator",
			"is %d characters long; use at most %d", n, MaxSeparatorLength)
	}
	return s, nil
}
