package app

import (
	"slices"
	"strings"
	"testing"
)

func TestConversationTemplates(t *testing.T) {
	a := &App{Name: "shop", Conversations: []string{" Support ", "Orders"}}
	if err := a.Validate(); err != nil {
		t.Fatal(err)
	}
	if got := a.Templates(); !slices.Equal(got, []string{"Default", "Support", "Orders"}) {
		t.Fatalf("templates = %q", got)
	}
	if !a.IsTemplate("Default") || !a.IsTemplate("Support") || a.IsTemplate("support") || a.IsTemplate("Mine") {
		t.Fatal("IsTemplate is wrong")
	}
	bad := map[string][]string{
		"conversations[0]: must be a name of 1 to 100":    {" "},
		"conversations[1]: \"Support\" is declared twice": {"Support", "Support"},
		"conversations[0]: \"Default\" is declared twice": {"Default"},
		"conversations[0]: must be a name":                {strings.Repeat("x", 101)},
		"conversations: at most 50, got 51":               slices.Repeat([]string{"x"}, 51),
	}
	for want, names := range bad {
		err := (&App{Name: "shop", Conversations: names}).Validate()
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%q: err = %v, want %q", names, err, want)
		}
	}
}
