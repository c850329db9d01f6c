package benchkit

import (
	"fmt"
	"os"
	"strings"
	"time"

	"github.com/pergola-ai/pergola/scripts/internal/loadstat"
)

// clockTick is USER_HZ, the unit of the CPU times in /proc/<pid>/stat; it
// is 100 on every Linux this runs on.
const clockTick = 10 * time.Millisecond

// CPUTime returns the user plus system CPU time process pid has used so
// far, 0 when it cannot be read. Its resolution is a clock tick (10 ms):
// only differences over many requests mean something.
func CPUTime(pid int) time.Duration {
	if pid == 0 {
		return 0
	}
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return 0
	}
	// The command name (field 2) may hold spaces; fields count from after it.
	s := string(b)
	fields := strings.Fields(s[strings.LastIndexByte(s, ')')+1:])
	if len(fields) < 13 {
		return 0
	}
	var user, sys int64
	fmt.Sscan(fields[11], &user)
	fmt.Sscan(fields[12], &sys)
	return time.Duration(user+sys) * clockTick
}

// PeakRSS samples the resident memory of several processes until stop is
// called, which returns each one's peak in MiB.
func PeakRSS(pids []int) (stop func() []int64) {
	done := make(chan struct{})
	peaks := make([]chan int64, len(pids))
	for i, pid := range pids {
		peaks[i] = make(chan int64, 1)
		go loadstat.WatchRSS(pid, done, peaks[i])
	}
	return func() []int64 {
		close(done)
		out := make([]int64, len(pids))
		for i := range peaks {
			out[i] = <-peaks[i] / 1024
		}
		return out
	}
}

// RSS returns the resident memory of process pid in MiB.
func RSS(pid int) int64 { return loadstat.RSS(pid) / 1024 }
