package identity

import (
	"bytes"
	"testing"

	"golang.org/x/crypto/bcrypt"
)

// TestDummyHashCostMatchesRealHashes checks what keeps a failed login of an
// unknown e-mail as slow as one of a known e-mail: the dummy hash has the
// cost real hashes are made with, and no password opens it.
func TestDummyHashCostMatchesRealHashes(t *testing.T) {
	for _, cost := range []int{bcrypt.DefaultCost, bcrypt.MinCost} {
		h := dummyHashFor(cost)()
		got, err := bcrypt.Cost(h)
		if err != nil {
			t.Fatalf("cost %d: dummy hash is not a bcrypt hash: %v", cost, err)
		}
		if got != cost {
			t.Errorf("dummy hash has cost %d, real hashes %d", got, cost)
		}
		for _, pw := range []string{"", "password", "not a password of anyone"} {
			if bcrypt.CompareHashAndPassword(h, []byte(pw)) == nil {
				t.Errorf("cost %d: password %q opens the dummy hash", cost, pw)
			}
		}
	}
}

// TestDummyHashMadeOnce checks that a non-default cost hashes once, not on
// every unknown login.
func TestDummyHashMadeOnce(t *testing.T) {
	f := dummyHashFor(bcrypt.MinCost)
	if !bytes.Equal(f(), f()) {
		t.Error("the dummy hash changed between calls; it is recomputed every time")
	}
}
