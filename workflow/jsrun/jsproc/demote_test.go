//go:build linux

package jsproc

import (
	"context"
	"errors"
	"fmt"
	"os"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/pergola-ai/pergola/workflow/jsrun"
)

// threadNices returns the nice value (field 19 of stat) of each thread of
// process pid, read from /proc.
func threadNices(t *testing.T, pid int) []int {
	t.Helper()
	dir := fmt.Sprintf("/proc/%d/task", pid)
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var out []int
	for _, e := range entries {
		if n, err := statNice(dir + "/" + e.Name() + "/stat"); err == nil {
			out = append(out, n) // else the thread ended
		}
	}
	return out
}

// statNice reads the nice value in a stat file of /proc: field 19.
func statNice(path string) (int, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return 0, err
	}
	s := string(b)
	f := strings.Fields(s[strings.LastIndexByte(s, ')')+1:]) // f[0] is field 3
	if len(f) < 17 {
		return 0, fmt.Errorf("%s: too few fields", path)
	}
	return strconv.Atoi(f[16])
}

func allAt(nices []int, want int) bool {
	return len(nices) > 0 && !slices.ContainsFunc(nices, func(n int) bool { return n != want })
}

// onlyWorker returns the process id of the pool's one live worker.
func onlyWorker(t *testing.T, p *Pool) int {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for time.Now().Before(deadline) {
		if pids := p.pids(); len(pids) == 1 {
			return pids[0]
		}
		time.Sleep(5 * time.Millisecond)
	}
	t.Fatalf("the pool has workers %v, want one", p.pids())
	return 0
}

// TestLongRunIsDemotedAndItsWorkerRetired: a run that loops has every
// thread of its worker at nice 19 once DemoteAfter has passed (not
// before), and the next run gets a fresh worker at the server's nice.
func TestLongRunIsDemotedAndItsWorkerRetired(t *testing.T) {
	own, _ := statNice("/proc/self/stat")
	after := 150 * time.Millisecond
	p := newPool(t, Config{Workers: 1, DemoteAfter: after})
	start := time.Now()
	done := make(chan error, 1)
	go func() {
		_, err := p.Run(context.Background(), compile(t, `function main() { for (;;) {} }`), nil, 2*time.Second)
		done <- err
	}()
	pid := onlyWorker(t, p)
	for !allAt(threadNices(t, pid), 19) {
		if time.Since(start) > 1800*time.Millisecond {
			t.Fatalf("the looping worker's threads are at nice %v, want 19", threadNices(t, pid))
		}
		time.Sleep(5 * time.Millisecond)
	}
	if took := time.Since(start); took < after {
		t.Fatalf("demoted after %s, before the %s threshold", took, after)
	}
	if err := <-done; !errors.Is(err, jsrun.ErrTimeout) {
		t.Fatalf("the loop ended with %v, want a timeout", err)
	}
	if _, err := p.Run(context.Background(), compile(t, `function main() { return {}; }`), nil, 10*time.Second); err != nil {
		t.Fatal(err)
	}
	fresh := onlyWorker(t, p)
	if fresh == pid {
		t.Fatal("the demoted worker was reused")
	}
	if n := threadNices(t, fresh); !allAt(n, own) {
		t.Fatalf("the fresh worker's threads are at nice %v, want %d", n, own)
	}
}

// TestShortRunsAreNotDemoted: runs shorter than DemoteAfter keep their
// worker, at the server's nice; with Nice at 19 already, a long run keeps
// it too.
func TestShortRunsAreNotDemoted(t *testing.T) {
	own, _ := statNice("/proc/self/stat")
	p := newPool(t, Config{Workers: 1, DemoteAfter: time.Second})
	trivial := compile(t, `function main() { return {}; }`)
	var pids []int
	for range 3 {
		if _, err := p.Run(context.Background(), trivial, nil, 10*time.Second); err != nil {
			t.Fatal(err)
		}
		pids = append(pids, onlyWorker(t, p))
	}
	if pids[0] != pids[1] || pids[1] != pids[2] {
		t.Fatalf("short runs changed workers: %v", pids)
	}
	if n := threadNices(t, pids[0]); !allAt(n, own) {
		t.Fatalf("after short runs the worker's threads are at nice %v, want %d", n, own)
	}

	niced := newPool(t, Config{Workers: 1, DemoteAfter: 20 * time.Millisecond, Nice: 19})
	for i := range 2 {
		_, err := niced.Run(context.Background(), compile(t, `function main() { for (;;) {} }`), nil, 200*time.Millisecond)
		if !errors.Is(err, jsrun.ErrTimeout) {
			t.Fatalf("the loop ended with %v, want a timeout", err)
		}
		pids[i] = onlyWorker(t, niced)
	}
	if pids[0] != pids[1] {
		t.Fatal("a worker already at nice 19 was replaced after a long run")
	}
}
