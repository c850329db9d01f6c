// Package benchkit holds what the benchmark programs under scripts/bench
// share: latency samples and their percentiles, a small client of
// Pergola's HTTP API, process CPU and memory readings, CPU profiles taken
// from a server's pprof listener, and the tables they print.
package benchkit

import (
	"fmt"
	"slices"
	"sync"
	"time"
)

// Sample collects the latencies of one measured path. It is safe for
// concurrent use.
type Sample struct {
	mu sync.Mutex
	d  []time.Duration
}

// Add records one latency.
func (s *Sample) Add(d time.Duration) {
	s.mu.Lock()
	s.d = append(s.d, d)
	s.mu.Unlock()
}

// Len returns how many latencies were recorded.
func (s *Sample) Len() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return len(s.d)
}

// Pct returns the p-th percentile (nearest rank), 0 when empty.
func (s *Sample) Pct(p float64) time.Duration {
	s.mu.Lock()
	defer s.mu.Unlock()
	if len(s.d) == 0 {
		return 0
	}
	sorted := slices.Clone(s.d)
	slices.Sort(sorted)
	i := int(float64(len(sorted))*p/100+0.5) - 1
	return sorted[max(0, min(len(sorted)-1, i))]
}

// Mean returns the average latency, 0 when empty.
func (s *Sample) Mean() time.Duration {
	s.mu.Lock()
	defer s.mu.Unlock()
	if len(s.d) == 0 {
		return 0
	}
	var sum time.Duration
	for _, d := range s.d {
		sum += d
	}
	return sum / time.Duration(len(s.d))
}

// Ms formats a duration in milliseconds with three decimals (µs
// resolution), the unit every table uses.
func Ms(d time.Duration) string {
	return fmt.Sprintf("%.3f", float64(d.Nanoseconds())/1e6)
}

// SignedMs formats a difference in milliseconds with its sign.
func SignedMs(d time.Duration) string {
	return fmt.Sprintf("%+.3f", float64(d.Nanoseconds())/1e6)
}
