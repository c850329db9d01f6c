package errs

import (
	"strings"
	"testing"
)

func TestExcerpt(t *testing.T) {
	cases := []struct{ in, want string }{
		{"short", "short"},
		{"  a\n\n  b\tc ", "a b c"},
		{"bad \xff byte", "bad \uFFFD byte"},
		{strings.Repeat("é", 12), strings.Repeat("é", 10) + "…"},
		{strings.Repeat("x", 1<<20), strings.Repeat("x", 10) + "…"},
	}
	for _, tc := range cases {
		if got := Excerpt(tc.in, 10); got != tc.want {
			t.Errorf("Excerpt(%.20q) = %q, want %q", tc.in, got, tc.want)
		}
	}
}
