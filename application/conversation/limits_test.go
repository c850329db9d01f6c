package conversation

import (
	"errors"
	"strings"
	"testing"

	"github.com/pergola-ai/pergola/domain/errs"
)

func TestCheckTextCountsCharacters(t *testing.T) {
	l := TextLimits{MessageChars: 5}
	for _, ok := range []string{"", "hello", "ééééé", "日本語です"} {
		if err := l.CheckText("text", ok); err != nil {
			t.Errorf("%q refused: %v", ok, err)
		}
	}
	err := l.CheckText("text", "éééééé")
	if !errors.Is(err, errs.ErrInvalid) || !strings.Contains(err.Error(), "text: is 6 characters, over the limit of 5") ||
		!strings.Contains(err.Error(), MessageCharsSetting) {
		t.Fatalf("six characters: %v", err)
	}
	if err := (TextLimits{}).CheckText("text", strings.Repeat("a", DefaultMessageChars+1)); err == nil {
		t.Fatal("zero limits do not take the default")
	}
}
