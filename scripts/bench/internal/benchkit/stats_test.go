package benchkit

import (
	"testing"
	"time"
)

// TestSamplePercentiles takes nearest-rank percentiles of what was added,
// in any order.
func TestSamplePercentiles(t *testing.T) {
	var s Sample
	if s.Pct(50) != 0 || s.Mean() != 0 {
		t.Fatal("an empty sample has no percentiles")
	}
	for i := 100; i >= 1; i-- {
		s.Add(time.Duration(i) * time.Millisecond)
	}
	for p, want := range map[float64]time.Duration{50: 50 * time.Millisecond, 99: 99 * time.Millisecond, 100: 100 * time.Millisecond, 0: time.Millisecond} {
		if got := s.Pct(p); got != want {
			t.Errorf("p%v = %s, want %s", p, got, want)
		}
	}
	if s.Mean() != 50500*time.Microsecond || s.Len() != 100 {
		t.Errorf("mean %s of %d", s.Mean(), s.Len())
	}
	if Ms(1234567*time.Nanosecond) != "1.235" || SignedMs(-2*time.Millisecond) != "-2.000" {
		t.Errorf("formats: %s %s", Ms(1234567*time.Nanosecond), SignedMs(-2*time.Millisecond))
	}
}
