package knowledge

import (
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/pergola-ai/pergola/domain/errs"
)

func text(s string) *Parsed { return &Parsed{Sections: []Section{{Text: s}}} }

func texts(ps []Piece) []string {
	var out []string
	for _, p := range ps {
		out = append(out, p.Text)
	}
	return out
}

// numbered returns n words w0 w1 ... with a sentence end every tenth.
func numbered(n int) string {
	var b strings.Builder
	for i := 0; i < n; i++ {
		fmt.Fprintf(&b, "w%d", i)
		if i%10 == 9 {
			b.WriteString(".")
		}
		b.WriteString(" ")
	}
	return strings.TrimSpace(b.String())
}

func TestSplitExact(t *testing.T) {
	long := strings.Repeat("句子很长", 30) // 120 characters, 120 tokens
	tests := []struct {
		name string
		doc  *Parsed
		s    ChunkStrategy
		want []string
	}{
		{"short text is one chunk", text("Hello world.\n\nSecond paragraph."), ChunkStrategy{},
			[]string{"Hello world.\n\nSecond paragraph."}},
		{"auto cleans extra spaces and blank lines", text("a   b\t\tc\n\n\n\nd  "), ChunkStrategy{},
			[]string{"a b c\n\nd"}},
		{"auto keeps the heading as a line", &Parsed{Sections: []Section{{Headings: []string{"Guide", "Install"}, Text: "Run it."}}},
			ChunkStrategy{}, []string{"Install\n\nRun it."}},
		{"empty document has no chunks", text(" \n\n "), ChunkStrategy{}, nil},
		{"custom makes each part a chunk", text("one###two### ###three"), ChunkStrategy{Type: ChunkCustom, Separator: "###"},
			[]string{"one", "two", "three"}},
		{"custom default separator is a blank line", text("one\n\ntwo\nstill two"), ChunkStrategy{Type: ChunkCustom},
			[]string{"one", "two\nstill two"}},
		{"custom chinese separator", text("第一段。第二段。"), ChunkStrategy{Type: ChunkCustom, Separator: "。"},
			[]string{"第一段", "第二段"}},
		{"custom keeps spaces unless asked", text("a   b"), ChunkStrategy{Type: ChunkCustom}, []string{"a   b"}},
		{"remove extra spaces", text("a   b\t c\n\n\n d"), ChunkStrategy{Type: ChunkCustom, Separator: "|", RemoveExtraSpaces: true},
			[]string{"a b c\nd"}},
		{"remove urls and emails", text("See https://example.com/a?b=1. Mail bob@example.org or www.test.cn now"),
			ChunkStrategy{Type: ChunkCustom, RemoveURLsEmails: true, RemoveExtraSpaces: true},
			[]string{"See . Mail or now"}},
		{"remove urls next to chinese", text("访问https://example.com了解，或写信给a.b@example.com。"),
			ChunkStrategy{Type: ChunkCustom, RemoveURLsEmails: true}, []string{"访问了解，或写信给。"}},
		{"chinese sentences are cut at 。 with overlap", text(long + "。" + long + "。"), ChunkStrategy{MaxTokens: 150},
			[]string{long + "。", "很长句子很长句子很长句子很长。" + long + "。"}},
		{"custom without overlap", text(long + "。" + long + "。"), ChunkStrategy{Type: ChunkCustom, MaxTokens: 150},
			[]string{long + "。", long + "。"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := Split(tt.doc, tt.s)
			if err != nil {
				t.Fatal(err)
			}
			if d := cmp.Diff(tt.want, texts(got)); d != "" {
				t.Errorf("chunks (-want +got):\n%s", d)
			}
		})
	}
}

func TestSplitAutoPacking(t *testing.T) {
	doc := numbered(2000)
	words := map[string]bool{}
	for _, w := range strings.Fields(doc) {
		words[strings.TrimSuffix(w, ".")] = true
	}
	tests := []struct {
		name          string
		s             ChunkStrategy
		wantMinChunks int
	}{
		{"auto with default overlap", ChunkStrategy{MaxTokens: 100}, 20},
		{"auto with large chunks", ChunkStrategy{MaxTokens: 1000, Overlap: 300}, 4},
		{"custom without overlap", ChunkStrategy{Type: ChunkCustom, MaxTokens: 100}, 20},
		{"custom with overlap", ChunkStrategy{Type: ChunkCustom, MaxTokens: 100, Overlap: 20}, 20},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s, _ := tt.s.Normalize()
			got, err := Split(text(doc), s)
			if err != nil {
				t.Fatal(err)
			}
			if len(got) < tt.wantMinChunks {
				t.Fatalf("got %d chunks, want at least %d", len(got), tt.wantMinChunks)
			}
			for i, p := range got {
				if n := CountTokens(p.Text); n > s.MaxTokens {
					t.Errorf("chunk %d has %d tokens, more than %d", i, n, s.MaxTokens)
				}
				for _, w := range strings.Fields(p.Text) {
					if !words[strings.TrimSuffix(w, ".")] {
						t.Fatalf("chunk %d has %q, a cut word", i, w)
					}
				}
				if !strings.Contains(doc, p.Text) {
					t.Fatalf("chunk %d is not a stretch of the text: %q", i, p.Text)
				}
				if i > 0 {
					checkOverlap(t, got[i-1].Text, p.Text, s.Overlap > 0, s.Overlap)
				}
			}
			if last := got[len(got)-1].Text; !strings.HasSuffix(last, "w1999.") {
				t.Errorf("last chunk %q does not end the text", last)
			}
		})
	}
}

// checkOverlap checks that next starts with the end of prev, worth about
// overlap tokens, or, without overlap, continues right after it.
func checkOverlap(t *testing.T, prev, next string, want bool, overlap int) {
	t.Helper()
	first := strings.Fields(next)[0]
	lastOfPrev := strings.Fields(prev)[len(strings.Fields(prev))-1]
	if !want {
		if strings.Contains(prev, first+" ") || strings.HasSuffix(prev, first) {
			t.Errorf("chunk starting %q repeats the one before", first)
		}
		return
	}
	if !strings.HasSuffix(prev, lastOfPrev) || !strings.Contains(next, lastOfPrev) {
		t.Fatalf("chunk %q... does not repeat %q from the one before", first, lastOfPrev)
	}
	shared := prev[strings.Index(prev, first):]
	if n := CountTokens(shared); n > overlap || n < overlap*2/3 {
		t.Errorf("overlap %q is %d tokens, want about %d", shared, n, overlap)
	}
}

func TestSplitParagraphAware(t *testing.T) {
	p1 := strings.TrimSpace(strings.Repeat("cat sat. ", 30)) // 90 tokens
	p2 := strings.TrimSpace(strings.Repeat("dog ran. ", 30)) // 90 tokens
	// An overlap of 1 token would start the second chunk with the full
	// stop, which a chunk never starts with, so it has none.
	got, err := Split(text(p1+"\n\n"+p2), ChunkStrategy{MaxTokens: 120, Overlap: 1})
	if err != nil {
		t.Fatal(err)
	}
	if d := cmp.Diff([]string{p1, p2}, texts(got)); d != "" {
		t.Errorf("paragraphs that fit stay whole (-want +got):\n%s", d)
	}
}

func TestSplitLongWord(t *testing.T) {
	word := strings.Repeat("x", 1000) // 250 tokens
	got, err := Split(text("start "+word+" end"), ChunkStrategy{MaxTokens: 100, Overlap: 0})
	if err != nil {
		t.Fatal(err)
	}
	want := []string{"start", strings.Repeat("x", 400), strings.Repeat("x", 400), strings.Repeat("x", 200) + " end"}
	if d := cmp.Diff(want, texts(got)); d != "" {
		t.Errorf("a word longer than a chunk is cut, nothing else is (-want +got):\n%s", d)
	}
}

func TestSplitMarkdown(t *testing.T) {
	long := strings.TrimSpace(strings.Repeat("这是一个很长的句子。", 30)) // 300 tokens
	doc := &Parsed{Sections: []Section{
		{Text: "Intro before headings."},
		{Headings: []string{"指南"}, Text: ""},
		{Headings: []string{"指南", "安装"}, Text: "运行 go build。"},
		{Headings: []string{"指南", "长节"}, Text: long},
	}}
	got, err := Split(doc, ChunkStrategy{Type: ChunkMarkdown, MaxTokens: 120})
	if err != nil {
		t.Fatal(err)
	}
	want := []Piece{
		{Text: "Intro before headings."},
		{Text: "运行 go build。", Headings: []string{"指南", "安装"}},
	}
	for _, n := range []int{12, 12, 6} { // 10 tokens a sentence, 120 a chunk
		want = append(want, Piece{Text: strings.Repeat("这是一个很长的句子。", n), Headings: []string{"指南", "长节"}})
	}
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("markdown pieces (-want +got):\n%s", d)
	}
}

func TestSplitRefuses(t *testing.T) {
	tests := []struct {
		name  string
		doc   *Parsed
		s     ChunkStrategy
		field string
		says  string
	}{
		{"a table", &Parsed{Table: &TableData{Columns: []string{"a"}}}, ChunkStrategy{}, "file", "TableRows"},
		{"a bad strategy", text("x"), ChunkStrategy{MaxTokens: 50}, "chunk_strategy.max_tokens", "100 to 5000"},
		{"too many chunks", text(strings.Repeat("x|", MaxChunksPerDocument+1)), ChunkStrategy{Type: ChunkCustom, Separator: "|"},
			"chunk_strategy.max_tokens", "split the file"},
		{"a chunk too long", text("a" + strings.Repeat(" ", MaxChunkChars) + "b"), ChunkStrategy{Type: ChunkCustom},
			"chunk_strategy.max_tokens", "more than 20000"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := Split(tt.doc, tt.s)
			var fe *errs.FieldError
			if !errors.As(err, &fe) || fe.Field != tt.field || !strings.Contains(err.Error(), tt.says) {
				t.Fatalf("Split error = %v, want one on %s saying %q", err, tt.field, tt.says)
			}
		})
	}
}

func TestSplitExactlyMaxChunks(t *testing.T) {
	got, err := Split(text(strings.Repeat("x|", MaxChunksPerDocument)), ChunkStrategy{Type: ChunkCustom, Separator: "|"})
	if err != nil || len(got) != MaxChunksPerDocument {
		t.Fatalf("got %d chunks, %v; want %d", len(got), err, MaxChunksPerDocument)
	}
}
