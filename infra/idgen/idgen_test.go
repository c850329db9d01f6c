package idgen

import (
	"sync"
	"testing"
	"time"
)

func TestNextIsIncreasingAndPositive(t *testing.T) {
	g := New()
	prev := int64(0)
	for i := range 100_000 {
		id := g.Next()
		if id <= prev {
			t.Fatalf("id %d = %d, not greater than the previous %d", i, id, prev)
		}
		prev = id
	}
}

func TestNextIsUniqueUnderConcurrency(t *testing.T) {
	g := New()
	const workers, each = 16, 20_000
	results := make([][]int64, workers)
	var wg sync.WaitGroup
	for w := range workers {
		wg.Go(func() {
			ids := make([]int64, each)
			for i := range ids {
				ids[i] = g.Next()
			}
			results[w] = ids
		})
	}
	wg.Wait()

	seen := make(map[int64]bool, workers*each)
	for w, ids := range results {
		for i, id := range ids {
			if id <= 0 {
				t.Fatalf("worker %d id %d = %d, want positive", w, i, id)
			}
			if seen[id] {
				t.Fatalf("worker %d id %d = %d was handed out twice", w, i, id)
			}
			if i > 0 && id <= ids[i-1] {
				t.Fatalf("worker %d saw %d after %d", w, id, ids[i-1])
			}
			seen[id] = true
		}
	}
}

func TestNextSurvivesClockTrouble(t *testing.T) {
	base := time.Date(2025, 6, 1, 12, 0, 0, 0, time.UTC)
	tests := []struct {
		name  string
		clock []time.Time // the clock reading for each call, in order
	}{
		{"clock goes backwards", []time.Time{base, base.Add(-time.Second), base.Add(-time.Hour)}},
		{"frozen clock beyond one millisecond of sequence", repeat(base, maxSequence+10)},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			i := 0
			g := &Generator{node: 5, now: func() time.Time { return tc.clock[i] }}
			prev := int64(0)
			for i = range tc.clock {
				id := g.Next()
				if id <= prev {
					t.Fatalf("call %d gave %d after %d", i, id, prev)
				}
				prev = id
			}
		})
	}
}

func TestIDEncodesTime(t *testing.T) {
	at := time.Date(2030, 1, 2, 3, 4, 5, 6e6, time.UTC)
	g := &Generator{node: 1023, now: func() time.Time { return at }}
	id := g.Next()
	got := time.UnixMilli(id>>(nodeBits+sequenceBits) + epoch).UTC()
	if !got.Equal(at) {
		t.Errorf("time in id = %v, want %v", got, at)
	}
	if node := id >> sequenceBits & (1<<nodeBits - 1); node != 1023 {
		t.Errorf("node in id = %d, want 1023", node)
	}
}

func repeat(t time.Time, n int) []time.Time {
	out := make([]time.Time, n)
	for i := range out {
		out[i] = t
	}
	return out
}
