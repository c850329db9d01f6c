package testenv

import (
	"os"
	"strconv"
	"strings"
	"testing"
)

// ProcStatus returns a size line of /proc/self/status (VmRSS, VmHWM …)
// in bytes; the test is skipped where there is no such file.
func ProcStatus(t testing.TB, key string) int64 {
	t.Helper()
	b, err := os.ReadFile("/proc/self/status")
	if err != nil {
		t.Skipf("no /proc/self/status: %v", err)
	}
	for _, line := range strings.Split(string(b), "\n") {
		if rest, ok := strings.CutPrefix(line, key+":"); ok {
			kb, err := strconv.ParseInt(strings.TrimSuffix(strings.TrimSpace(rest), " kB"), 10, 64)
			if err != nil {
				t.Fatalf("%s: %v", line, err)
			}
			return kb << 10
		}
	}
	t.Fatalf("no %s in /proc/self/status", key)
	return 0
}

// ResetPeakRSS resets the process's peak resident memory (VmHWM) to its
// current RSS and returns that RSS.
func ResetPeakRSS(t testing.TB) int64 {
	t.Helper()
	if err := os.WriteFile("/proc/self/clear_refs", []byte("5"), 0); err != nil {
		t.Skipf("cannot reset the peak RSS here: %v", err)
	}
	return ProcStatus(t, "VmRSS")
}
