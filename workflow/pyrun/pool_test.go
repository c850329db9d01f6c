package pyrun

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"
)

// TestParallelRuns: runs at once each get their own params back, more
// runs than Parallel waiting their turn.
func TestParallelRuns(t *testing.T) {
	r := newRunner(t, Limits{Parallel: 3, Warm: 2})
	code := "import asyncio\nasync def main(args):\n    await asyncio.sleep(0.05)\n    return {'twice': args.params['i'] * 2}\n"
	var wg sync.WaitGroup
	for i := range 12 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			res, err := r.Run(context.Background(), code, map[string]any{"i": i}, 0)
			if got := fmtResult(res, err); got != fmt.Sprintf(`{"twice":%d} `, 2*i) {
				t.Errorf("run %d: %s", i, got)
			}
		}()
	}
	wg.Wait()
}

// TestPoolRefillsAndNothingLeaks: after a run the pool is full again, and
// what one run changes in the interpreter the next one does not see.
func TestPoolRefillsAndNothingLeaks(t *testing.T) {
	r := newRunner(t, Limits{Warm: 3})
	defer r.Close()
	set := "import json\ndef main(args):\n    json.leaked = 1\n    return {}\n"
	if _, err := r.Run(context.Background(), set, nil, 0); err != nil {
		t.Fatal(err)
	}
	waitWarm(t, r, 3)
	res, err := r.Run(context.Background(), "import json\ndef main(args):\n    return {'leaked': hasattr(json, 'leaked')}\n", nil, 0)
	if got := fmtResult(res, err); got != `{"leaked":false} ` {
		t.Fatalf("the second run: %s", got)
	}
}

func waitWarm(t *testing.T, r *Runner, n int) {
	t.Helper()
	for deadline := time.Now().Add(20 * time.Second); r.pool.idleCount() < n; time.Sleep(10 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("the pool holds %d warm sandboxes, want %d", r.pool.idleCount(), n)
		}
	}
}

// TestKilledSandboxesDoNotBreakThePool: a sandbox killed mid-run (from
// outside: its code may signal no process, itself neither) fails that run
// only; warm sandboxes killed while waiting are replaced.
func TestKilledSandboxesDoNotBreakThePool(t *testing.T) {
	r := newRunner(t, Limits{Warm: 2})
	defer r.Close()
	r.onRun = func(pid int) { _ = syscall.Kill(pid, syscall.SIGKILL) }
	_, err := r.Run(context.Background(), "import time\ndef main(args):\n    time.sleep(5)\n", nil, 0)
	r.onRun = nil
	if err == nil || !strings.Contains(err.Error(), "ended without an answer") {
		t.Fatalf("the killed run: %v", err)
	}
	waitWarm(t, r, 2)
	r.pool.mu.Lock()
	idle := append([]idleWorker(nil), r.pool.idle...)
	r.pool.mu.Unlock()
	for _, iw := range idle { // kill the warm ones from outside
		_ = syscall.Kill(-iw.w.cmd.Process.Pid, syscall.SIGKILL)
		<-iw.w.exited
	}
	res, err := r.Run(context.Background(), "def main(args):\n    return {'ok': True}\n", nil, 0)
	if got := fmtResult(res, err); got != `{"ok":true} ` {
		t.Fatalf("the run after the kills: %s", got)
	}
}

// TestCancelAndBusy: a cancelled run ends at once; with every slot taken
// a run waits its time limit, then fails with ErrBusy.
func TestCancelAndBusy(t *testing.T) {
	r := newRunner(t, Limits{Parallel: 1})
	loop := "def main(args):\n    while True:\n        pass\n"
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { _, err := r.Run(ctx, loop, nil, 10*time.Second); done <- err }()
	time.Sleep(300 * time.Millisecond)
	start := time.Now()
	_, err := r.Run(context.Background(), loop, nil, 500*time.Millisecond)
	if !errors.Is(err, ErrBusy) || time.Since(start) > 2*time.Second {
		t.Fatalf("the run without a slot: %v after %s", err, time.Since(start))
	}
	cancel()
	select {
	case err := <-done:
		if !errors.Is(err, context.Canceled) {
			t.Fatalf("the cancelled run: %v", err)
		}
	case <-time.After(2 * time.Second):
		t.Fatal("the cancelled run did not end")
	}
}
