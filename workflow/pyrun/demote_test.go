//go:build linux

package pyrun

import (
	"context"
	"errors"
	"fmt"
	"os"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/pergola-ai/pergola/workflow/internal/procnice"
)

// statNice reads the nice value of process pid: field 19 of its stat.
func statNice(pid string) (int, error) {
	b, err := os.ReadFile("/proc/" + pid + "/stat")
	if err != nil {
		return 0, err
	}
	s := string(b)
	f := strings.Fields(s[strings.LastIndexByte(s, ')')+1:]) // f[0] is field 3
	if len(f) < 17 {
		return 0, fmt.Errorf("%s: too few fields", pid)
	}
	return strconv.Atoi(f[16])
}

// sandboxNices returns the command and nice value of each process of the
// sandbox whose bwrap is pid.
func sandboxNices(pid int) map[string]int {
	out := map[string]int{}
	for _, p := range procnice.Descendants(pid) {
		id := strconv.Itoa(p)
		comm, err := os.ReadFile("/proc/" + id + "/comm")
		n, nerr := statNice(id)
		if err == nil && nerr == nil {
			out[id+" "+strings.TrimSpace(string(comm))] = n
		}
	}
	return out
}

// allAt reports whether every process in m is at nice want.
func allAt(m map[string]int, want int) bool {
	for _, n := range m {
		if n != want {
			return false
		}
	}
	return true
}

// withPython reports whether m holds a python process and bwrap's.
func withPython(m map[string]int) bool {
	for name := range m {
		if strings.Contains(name, "python") {
			return len(m) >= 2
		}
	}
	return false
}

// runWatched starts code in r and returns the sandbox's process id and
// the run's error channel.
func runWatched(t *testing.T, r *Runner, code string, timeout time.Duration) (int, <-chan error) {
	t.Helper()
	pids := make(chan int, 1)
	r.onRun = func(pid int) { pids <- pid }
	done := make(chan error, 1)
	go func() {
		_, err := r.Run(context.Background(), code, nil, timeout)
		done <- err
	}()
	select {
	case pid := <-pids:
		return pid, done
	case err := <-done:
		t.Fatalf("the run ended before its sandbox was given it: %v", err)
	case <-time.After(20 * time.Second):
		t.Fatal("no sandbox was given the run")
	}
	return 0, nil
}

// TestLongRunIsDemoted: once DemoteAfter has passed, every process of a
// looping run's sandbox (bwrap and python) is at nice 19, not before.
func TestLongRunIsDemoted(t *testing.T) {
	after := 150 * time.Millisecond
	r := newRunner(t, Limits{Timeout: 10 * time.Second, DemoteAfter: after})
	defer r.Close()
	start := time.Now()
	pid, done := runWatched(t, r, "def main(args):\n    while True:\n        pass\n", 2*time.Second)
	for m := sandboxNices(pid); !withPython(m) || !allAt(m, procnice.Demoted); m = sandboxNices(pid) {
		if time.Since(start) > 1800*time.Millisecond {
			t.Fatalf("the looping sandbox's processes are at %v, want all at 19", sandboxNices(pid))
		}
		time.Sleep(5 * time.Millisecond)
	}
	if took := time.Since(start); took < after {
		t.Fatalf("demoted after %s, before the %s threshold", took, after)
	}
	if err := <-done; !errors.Is(err, ErrTimeout) {
		t.Fatalf("the loop ended with %v, want a timeout", err)
	}
}

// TestShortRunIsNotDemoted: a run shorter than DemoteAfter keeps the
// server's nice all along.
func TestShortRunIsNotDemoted(t *testing.T) {
	own, _ := statNice("self")
	r := newRunner(t, Limits{Timeout: 10 * time.Second, DemoteAfter: 3 * time.Second})
	defer r.Close()
	code := "import time\n\ndef main(args):\n    t = time.monotonic()\n    while time.monotonic() - t < 0.4:\n        pass\n    return {}\n"
	pid, done := runWatched(t, r, code, 10*time.Second)
	seen := 0
	for {
		select {
		case err := <-done:
			if err != nil {
				t.Fatal(err)
			}
			if seen == 0 {
				t.Fatal("the sandbox was never seen running")
			}
			return
		case <-time.After(10 * time.Millisecond):
		}
		if m := sandboxNices(pid); len(m) >= 2 {
			seen++
			if !allAt(m, own) {
				t.Fatalf("a short run's sandbox is at %v, want all at %d", m, own)
			}
		}
	}
}

// TestForkedLongRunIsDemoted: a looping run forked from its workspace's
// server is demoted, every thread of it, once DemoteAfter has passed; the
// server keeps its priority for the runs that follow.
func TestForkedLongRunIsDemoted(t *testing.T) {
	own, _ := statNice("self")
	r := newRunner(t, Limits{Timeout: 10 * time.Second, DemoteAfter: 150 * time.Millisecond})
	defer r.Close()
	z := waitZygote(t, r, 0)
	code := "import threading\ndef spin():\n    while True:\n        pass\ndef main(args):\n    threading.Thread(target=spin, daemon=True).start()\n    spin()\n"
	pid, done := runWatched(t, r, code, 2*time.Second)
	threadsAt := func() map[string]int {
		m := map[string]int{}
		for _, tid := range procnice.Tasks(pid) {
			if n, err := procnice.Nice(tid); err == nil {
				m[strconv.Itoa(tid)] = n
			}
		}
		return m
	}
	for m := threadsAt(); len(m) < 2 || !allAt(m, procnice.Demoted); m = threadsAt() {
		if len(m) == 0 {
			t.Fatal("the forked run ended before it was demoted")
		}
		time.Sleep(5 * time.Millisecond)
	}
	if n, err := procnice.Nice(serverOf(t, z)); err != nil || n != own {
		t.Fatalf("the fork server is at nice %d (%v), want %d", n, err, own)
	}
	if err := <-done; !errors.Is(err, ErrTimeout) {
		t.Fatalf("the loop ended with %v, want a timeout", err)
	}
}
