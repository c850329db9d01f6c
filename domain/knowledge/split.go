package knowledge

import (
	"fmt"
	"strings"
	"unicode/utf8"

	"github.com/pergola-ai/pergola/domain/errs"
)

// Split cuts a parsed text document into pieces by the strategy, which it
// normalizes first:
//
//   - auto packs the whole text (each section's innermost heading kept as a
//     line of its own) into chunks of up to MaxTokens, cutting at paragraph
//     ends first, then line and sentence ends (also 。！？), then between
//     words, and inside a word only when the word alone exceeds MaxTokens;
//     each chunk after the first starts with about Overlap tokens from the
//     end of the one before. Runs of spaces and of blank lines are cleaned.
//   - custom cuts the text at every Separator; each part is its own chunk,
//     cut further like auto when longer than MaxTokens.
//   - markdown makes a chunk of each heading section, keeping its heading
//     path in Piece.Headings; longer sections are cut further like auto
//     (each piece keeps the path), empty sections are dropped.
//
// RemoveExtraSpaces and RemoveURLsEmails clean the text of every type.
// Errors are errs.Invalid: a bad strategy (see Normalize), a table (use
// TableRows), or a document over MaxChunksPerDocument chunks or with a
// chunk over MaxChunkChars characters.
func Split(p *Parsed, s ChunkStrategy) ([]Piece, error) {
	if p == nil {
		return nil, nil
	}
	if p.Table != nil {
		return nil, errs.Invalid("file", "a table document is not cut into text chunks; index its rows with TableRows")
	}
	s, err := s.Normalize()
	if err != nil {
		return nil, err
	}
	var pieces []Piece
	switch s.Type {
	case ChunkCustom:
		pieces, err = splitCustom(p, s)
	case ChunkMarkdown:
		pieces, err = splitMarkdown(p, s)
	default:
		pieces, err = splitAuto(p, s)
	}
	if err != nil {
		return nil, err
	}
	return pieces, checkPieces(pieces)
}

// splitAuto packs the whole document as one text.
func splitAuto(p *Parsed, s ChunkStrategy) ([]Piece, error) {
	text := clean(autoClean(joinSections(p.Sections)), s)
	return collect(nil, pack(units(text, s.MaxTokens), s.MaxTokens, s.Overlap), nil)
}

// splitCustom makes each separator-cut part its own chunk or chunks.
func splitCustom(p *Parsed, s ChunkStrategy) ([]Piece, error) {
	var out []Piece
	var err error
	for _, part := range strings.Split(joinSections(p.Sections), s.Separator) {
		part = clean(part, s)
		out, err = collect(out, pack(units(part, s.MaxTokens), s.MaxTokens, s.Overlap), nil)
		if err != nil {
			return nil, err
		}
	}
	return out, nil
}

// splitMarkdown makes each heading section its own chunk or chunks.
func splitMarkdown(p *Parsed, s ChunkStrategy) ([]Piece, error) {
	var out []Piece
	var err error
	for _, sec := range p.Sections {
		text := clean(sec.Text, s)
		out, err = collect(out, pack(units(text, s.MaxTokens), s.MaxTokens, s.Overlap), sec.Headings)
		if err != nil {
			return nil, err
		}
	}
	return out, nil
}

// joinSections gives the document's text with each section's innermost
// heading as a paragraph of its own, so heading words stay searchable.
func joinSections(secs []Section) string {
	var b strings.Builder
	for _, sec := range secs {
		if n := len(sec.Headings); n > 0 {
			b.WriteString(sec.Headings[n-1])
			b.WriteString("\n\n")
		}
		b.WriteString(sec.Text)
		b.WriteString("\n\n")
	}
	return b.String()
}

// collect appends texts as pieces with the heading path, and stops with an
// error as soon as the document has too many chunks, so a huge document
// does not pile up pieces first.
func collect(out []Piece, texts []string, headings []string) ([]Piece, error) {
	for _, t := range texts {
		if len(out) >= MaxChunksPerDocument {
			return nil, errs.Invalid("chunk_strategy.max_tokens",
				"the document makes more than %d chunks; raise max_tokens or split the file into smaller ones", MaxChunksPerDocument)
		}
		out = append(out, Piece{Text: t, Headings: append([]string(nil), headings...)})
	}
	return out, nil
}

// checkPieces refuses a chunk too long to store and embed, which only text
// with very long runs of cheap characters can make.
func checkPieces(pieces []Piece) error {
	for i, p := range pieces {
		if n := utf8.RuneCountInString(p.Text); n > MaxChunkChars {
			return errs.Invalid("chunk_strategy.max_tokens", "%s has %d characters, more than %d; lower max_tokens or clean the text",
				chunkName(i), n, MaxChunkChars)
		}
	}
	return nil
}

// chunkName names a chunk for a person, counting from 1.
func chunkName(i int) string { return fmt.Sprintf("chunk %d", i+1) }
