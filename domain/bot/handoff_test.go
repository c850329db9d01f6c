package bot

import (
	"errors"
	"strings"
	"testing"

	"github.com/pergola-ai/pergola/domain/errs"
)

// TestValidateHandoffs: each wrong handoff list is refused naming the
// field to fix.
func TestValidateHandoffs(t *testing.T) {
	long := strings.Repeat("x", 1001)
	many := make([]Handoff, MaxHandoffs+1)
	for i := range many {
		many[i] = Handoff{BotID: int64(i + 1)}
	}
	cases := []struct {
		name     string
		handoffs []Handoff
		self     int64
		want     string
	}{
		{"fine", []Handoff{{BotID: 2, Description: "billing"}, {BotID: 3}}, 1, ""},
		{"no id", []Handoff{{BotID: 0}}, 1, "handoffs[0].bot_id: is required"},
		{"twice", []Handoff{{BotID: 2}, {BotID: 2}}, 1, "handoffs[1].bot_id: bot 2 is listed twice"},
		{"long description", []Handoff{{BotID: 2, Description: long}}, 1, "handoffs[0].description"},
		{"too many", many, 100, "at most 16 handoff targets"},
		{"itself", []Handoff{{BotID: 3}, {BotID: 1}}, 1, "handoffs[1].bot_id: is this bot itself"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			c := Config{Name: "Support", Handoffs: tc.handoffs}
			c.Normalize()
			err := c.Validate()
			if err == nil {
				err = c.ValidateHandoffTargets(tc.self)
			}
			if tc.want == "" {
				if err != nil {
					t.Fatalf("refused: %v", err)
				}
				if !c.HasTools() {
					t.Fatal("a bot with handoffs has no tools")
				}
				return
			}
			if !errors.Is(err, errs.ErrInvalid) || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("err = %v; want ErrInvalid saying %q", err, tc.want)
			}
		})
	}
}
