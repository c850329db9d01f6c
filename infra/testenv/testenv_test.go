package testenv

import (
	"fmt"
	"regexp"
	"strings"
	"testing"
)

// recorder is a testing.TB whose Fatalf only records the message.
type recorder struct {
	testing.TB
	fatal string
}

func (r *recorder) Helper()                           {}
func (r *recorder) Fatalf(format string, args ...any) { r.fatal = fmt.Sprintf(format, args...) }

// TestNamesCarryTheRun checks the names scripts/test.sh looks for after a
// run: databases and users pergola_test_<run>_<suffix> within MySQL's 32
// characters, Redis prefixes pergola_test:<run>:<test>:<suffix>: without
// glob characters.
func TestNamesCarryTheRun(t *testing.T) {
	t.Setenv("PERGOLA_TEST_RUN", "ab12cd34")
	name := Name(t)
	if !regexp.MustCompile(`^pergola_test_ab12cd34_[0-9a-f]{10}$`).MatchString(name) || len(name) > 32 {
		t.Fatalf("Name = %q; want pergola_test_ab12cd34_<10 hex>, at most 32 characters", name)
	}
	t.Run("odd [name] *", func(t *testing.T) {
		p := newPrefix(t)
		if !strings.HasPrefix(p, "pergola_test:ab12cd34:TestNamesCarryTheRun.odd_.name._.:") || strings.ContainsAny(p, "*?[] ") {
			t.Fatalf("prefix %q", p)
		}
	})
	t.Setenv("PERGOLA_TEST_RUN", "")
	if run := Run(t); run != "local" {
		t.Fatalf("Run without PERGOLA_TEST_RUN = %q, want local", run)
	}
	for _, bad := range []string{"AB", "a-b", "123456789", "x'; DROP"} {
		t.Setenv("PERGOLA_TEST_RUN", bad)
		r := &recorder{TB: t}
		Run(r)
		if !strings.Contains(r.fatal, "PERGOLA_TEST_RUN") {
			t.Errorf("PERGOLA_TEST_RUN=%q accepted", bad)
		}
	}
}
