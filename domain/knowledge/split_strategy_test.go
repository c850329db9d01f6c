package knowledge

import (
	"errors"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/pergola-ai/pergola/domain/errs"
)

func TestNormalizeDefaults(t *testing.T) {
	tests := []struct {
		name string
		in   ChunkStrategy
		want ChunkStrategy
	}{
		{"auto gets 800 tokens and 10% overlap", ChunkStrategy{}, ChunkStrategy{MaxTokens: 800, Overlap: 80}},
		{"auto overlap follows max tokens", ChunkStrategy{MaxTokens: 300}, ChunkStrategy{MaxTokens: 300, Overlap: 30}},
		{"auto keeps a given overlap", ChunkStrategy{MaxTokens: 300, Overlap: 5}, ChunkStrategy{MaxTokens: 300, Overlap: 5}},
		{"custom gets a blank-line separator and no overlap", ChunkStrategy{Type: ChunkCustom},
			ChunkStrategy{Type: ChunkCustom, MaxTokens: 800, Separator: "\n\n"}},
		{"custom keeps its separator", ChunkStrategy{Type: ChunkCustom, Separator: "###", MaxTokens: 100},
			ChunkStrategy{Type: ChunkCustom, Separator: "###", MaxTokens: 100}},
		{"markdown has no overlap by default", ChunkStrategy{Type: ChunkMarkdown},
			ChunkStrategy{Type: ChunkMarkdown, MaxTokens: 800}},
		{"bounds are allowed", ChunkStrategy{Type: ChunkCustom, MaxTokens: 5000, Overlap: 2499, Separator: strings.Repeat("分", 64)},
			ChunkStrategy{Type: ChunkCustom, MaxTokens: 5000, Overlap: 2499, Separator: strings.Repeat("分", 64)}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := tt.in.Normalize()
			if err != nil {
				t.Fatal(err)
			}
			if d := cmp.Diff(tt.want, got); d != "" {
				t.Errorf("Normalize (-want +got):\n%s", d)
			}
		})
	}
}

func TestNormalizeRefuses(t *testing.T) {
	tests := []struct {
		name  string
		in    ChunkStrategy
		field string
	}{
		{"unknown chunk type", ChunkStrategy{Type: 3}, "chunk_strategy.chunk_type"},
		{"negative chunk type", ChunkStrategy{Type: -1}, "chunk_strategy.chunk_type"},
		{"max tokens too small", ChunkStrategy{MaxTokens: 99}, "chunk_strategy.max_tokens"},
		{"max tokens too large", ChunkStrategy{MaxTokens: 5001}, "chunk_strategy.max_tokens"},
		{"negative max tokens", ChunkStrategy{MaxTokens: -5}, "chunk_strategy.max_tokens"},
		{"overlap half of max", ChunkStrategy{MaxTokens: 200, Overlap: 100}, "chunk_strategy.overlap"},
		{"negative overlap", ChunkStrategy{Type: ChunkCustom, Overlap: -1}, "chunk_strategy.overlap"},
		{"separator too long", ChunkStrategy{Type: ChunkCustom, Separator: strings.Repeat("-", 65)}, "chunk_strategy.separator"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := tt.in.Normalize()
			var fe *errs.FieldError
			if !errors.As(err, &fe) || fe.Field != tt.field {
				t.Fatalf("Normalize error = %v, want a field error on %s", err, tt.field)
			}
			if !errors.Is(err, errs.ErrInvalid) {
				t.Errorf("error %v does not match ErrInvalid", err)
			}
		})
	}
}
