// Package loadstat holds what the load scripts' programs share: the
// percentile of sorted latencies and a sampler of a process's peak RSS.
package loadstat

import (
	"fmt"
	"os"
	"strings"
	"time"
)

// Pct returns the p-th percentile of sorted durations.
func Pct(d []time.Duration, p int) time.Duration {
	return d[min(len(d)-1, len(d)*p/100)].Round(time.Millisecond / 10)
}

// WatchRSS samples the resident memory of process pid every 50 ms until
// stop is closed, then sends the peak, in KiB, on peak.
func WatchRSS(pid int, stop <-chan struct{}, peak chan<- int64) {
	var most int64
	t := time.NewTicker(50 * time.Millisecond)
	defer t.Stop()
	for {
		if kb := RSS(pid); kb > most {
			most = kb
		}
		select {
		case <-stop:
			peak <- most
			return
		case <-t.C:
		}
	}
}

// RSS returns the resident memory of process pid in KiB (0: unknown).
func RSS(pid int) int64 {
	if pid == 0 {
		return 0
	}
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		return 0
	}
	for _, line := range strings.Split(string(b), "\n") {
		if rest, ok := strings.CutPrefix(line, "VmRSS:"); ok {
			var kb int64
			fmt.Sscanf(strings.TrimSpace(rest), "%d", &kb)
			return kb
		}
	}
	return 0
}
