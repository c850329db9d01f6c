package fakellm

import (
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestParseCalls(t *testing.T) {
	cases := []struct {
		name string
		text string
		want []ToolCall
	}{
		{"none", "hello", nil},
		{"bare directive", "#call", nil},
		{"name only", "#call add", []ToolCall{Call("add", "{}")}},
		{"args compacted", "#call add { \"a\" : 1 }", []ToolCall{Call("add", `{"a":1}`)}},
		{"newline before args", "#call add\n{\"a\":1}", []ToolCall{Call("add", `{"a":1}`)}},
		{"bad json", "#call add {oops", []ToolCall{Call("add", "{}")}},
		{"two", `#call a {"x":1} then #call b {"y":[1,2]}`, []ToolCall{Call("a", `{"x":1}`), Call("b", `{"y":[1,2]}`)}},
		{"nested braces", `#call a {"o":{"p":"}"}}`, []ToolCall{Call("a", `{"o":{"p":"}"}}`)}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			if diff := cmp.Diff(tc.want, parseCalls(tc.text)); diff != "" {
				t.Errorf("parseCalls(%q) (-want +got):\n%s", tc.text, diff)
			}
		})
	}
}

func TestSplitKeepsRunes(t *testing.T) {
	got := split("héllo wörld", 4)
	want := []string{"héll", "o wö", "rld"}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("split (-want +got):\n%s", diff)
	}
}

func TestCountTokens(t *testing.T) {
	for s, want := range map[string]int{"": 0, "a": 1, "abcd": 1, "abcde": 2, "日本語です": 2} {
		if got := countTokens(s); got != want {
			t.Errorf("countTokens(%q) = %d, want %d", s, got, want)
		}
	}
}
