package chat

import (
	"strings"
	"testing"

	"github.com/cloudwego/eino/schema"
)

func TestFitHistoryKeepsTheNewestThatFit(t *testing.T) {
	sys := schema.SystemMessage("prompt")
	u := func(s string) *schema.Message { return schema.UserMessage(s) }
	a := func(s string) *schema.Message { return schema.AssistantMessage(s, nil) }
	ten := strings.Repeat("x", 10)
	cases := []struct {
		name string
		in   []*schema.Message
		max  int
		want []string // contents kept after the system prompt
	}{
		{"all fit", []*schema.Message{sys, u("1" + ten), a("2" + ten), u("q")}, 100, []string{"1" + ten, "2" + ten, "q"}},
		{"oldest round dropped", []*schema.Message{sys, u("1" + ten), a("2" + ten), u("3" + ten), a("4" + ten), u("q")}, 25,
			[]string{"3" + ten, "4" + ten, "q"}},
		{"a lone answer at the head goes too", []*schema.Message{sys, u("1" + ten), a("2" + ten), u("q")}, 15, []string{"q"}},
		{"nothing fits: the turn alone", []*schema.Message{sys, u("1" + ten), u("q" + strings.Repeat("y", 50))}, 5,
			[]string{"q" + strings.Repeat("y", 50)}},
		{"a caller's system message stays", []*schema.Message{sys, schema.SystemMessage("rules"), u("1" + ten), a("2" + ten), u("q")}, 25,
			[]string{"rules", "1" + ten, "2" + ten, "q"}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			got := fitHistory(tc.in, tc.max)
			if got[0] != sys {
				t.Fatalf("the system prompt was not kept first: %v", got)
			}
			var contents []string
			for _, m := range got[1:] {
				contents = append(contents, m.Content)
			}
			if strings.Join(contents, "|") != strings.Join(tc.want, "|") {
				t.Fatalf("kept %q, want %q", contents, tc.want)
			}
		})
	}
}
