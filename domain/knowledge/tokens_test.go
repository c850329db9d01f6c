package knowledge

import "testing"

func TestCountTokens(t *testing.T) {
	tests := []struct {
		name string
		in   string
		want int
	}{
		{"empty", "", 0},
		{"whitespace is free", " \n\t ", 0},
		{"short words are one token", "a cat sat", 3},
		{"long word is a token per four letters", "tokenizer", 3},
		{"punctuation counts", "Hi, you!", 4},
		{"each chinese character is a token", "知识库", 3},
		{"mixed chinese and english", "用 Go 写", 3},
		{"full-width punctuation counts", "你好。", 3},
		{"japanese kana", "ひらがな", 4},
		{"digits are words", "2026", 1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := CountTokens(tt.in); got != tt.want {
				t.Errorf("CountTokens(%q) = %d, want %d", tt.in, got, tt.want)
			}
		})
	}
}
