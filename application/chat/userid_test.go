package chat

import (
	"errors"
	"strings"
	"testing"

	"github.com/pergola-ai/pergola/domain/errs"
)

func TestCheckUserID(t *testing.T) {
	cases := []struct {
		id string
		ok bool
	}{
		{"alice", true}, {"Alice", true}, {"\u0430lice", true}, {"user 42", true}, {"李雷", true},
		{"", false}, {"alice ", false}, {" alice", false}, {"alice\t", false}, {"alice\x00", false},
		{"al\x01ice", false}, {"al\u200bice", false}, {"alice\u00a0", false}, {"\xff", false}, {strings.Repeat("a", 129), false},
	}
	for _, c := range cases {
		err := checkUserID("user_id", c.id)
		if c.ok && err != nil {
			t.Errorf("%q refused: %v", c.id, err)
		}
		if !c.ok && (!errors.Is(err, errs.ErrInvalid) || !strings.Contains(err.Error(), "user_id")) {
			t.Errorf("%q: error = %v, want an ErrInvalid naming user_id", c.id, err)
		}
	}
}
