package jsproc

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/pergola-ai/pergola/workflow/jsrun"
)

// newPool returns a pool of this test binary's workers, closed when the
// test ends.
func newPool(t *testing.T, cfg Config) *Pool {
	t.Helper()
	cfg.Command = workerCommand()
	cfg.Log = slog.New(slog.DiscardHandler)
	p := New(cfg)
	t.Cleanup(func() { _ = p.Close() })
	return p
}

func compile(t *testing.T, code string) *jsrun.Program {
	t.Helper()
	p, err := jsrun.Compile(code)
	if err != nil {
		t.Fatal(err)
	}
	return p
}

// outcome prints a run's result, logs and error for comparison.
func outcome(res jsrun.Result, err error) string {
	return fmt.Sprintf("value=%#v logs=%q err=%v", res.Value, res.Logs, err)
}

// TestPoolRunsLikeInProcess runs the same scripts in a worker and
// in-process and wants the same results, logs and errors.
func TestPoolRunsLikeInProcess(t *testing.T) {
	lim := jsrun.Limits{Memory: 16 << 20, Concurrency: 1}
	local := jsrun.NewRunner(lim)
	pool := newPool(t, Config{Workers: 1, Limits: lim})
	cases := map[string]string{
		"sync":         `function main({ params }) { console.log("n is", params.n); return { double: params.n * 2, f: 1.5 }; }`,
		"async":        `async function main({ params }) { return { v: await Promise.resolve(params.s + "!") }; }`,
		"undefined":    `function main() {}`,
		"exception":    `function main() { null.x; }`,
		"rejected":     `async function main() { throw new RangeError("bad"); }`,
		"no main":      `const x = 1;`,
		"loop":         `function main() { for (;;) {} }`,
		"allocation":   `function main() { const a = []; for (;;) a.push({ s: "x".repeat(64) + a.length }); }`,
		"big string":   `function main() { return { n: "ab".repeat(5e7).length }; }`,
		"recursion":    `function main() { const f = () => f(); f(); }`,
		"isolation":    `function main() { globalThis.leak = (globalThis.leak || 0) + 1; return { n: globalThis.leak }; }`,
		"nested":       `function main({ params }) { return { a: [1, "x", null, { b: true }], p: params }; }`,
		"logs on fail": `function main() { console.log("before"); throw new Error("boom"); }`,
	}
	params := map[string]any{"n": 21, "s": "hi"}
	for name, code := range cases {
		t.Run(name, func(t *testing.T) {
			p := compile(t, code)
			timeout := 20 * time.Second // the allocation must meet the memory limit first, however busy the machine
			if name == "loop" {
				timeout = 300 * time.Millisecond
			}
			want := outcome(local.Run(context.Background(), p, params, timeout))
			if got := outcome(pool.Run(context.Background(), p, params, timeout)); got != want {
				t.Fatalf("in a worker:\n%s\nin-process:\n%s", got, want)
			}
		})
	}
}

// TestHostileScriptKillsOnlyItsWorker checks that code outgrowing its
// memory gets jsrun.ErrMemory, by the watch inside the worker or, when
// the watch is too late (its limit here is above the process's hard
// limit), by the worker's death; the worker is then replaced and the next
// run succeeds.
func TestHostileScriptKillsOnlyItsWorker(t *testing.T) {
	doubling := compile(t, `function main() { let s = "x"; for (;;) s = s + s; }`)
	quick := compile(t, `function main({ params }) { return { v: params.n + 1 }; }`)
	for name, cfg := range map[string]Config{
		"watch":      {Limits: jsrun.Limits{Memory: 32 << 20}},
		"hard limit": {Limits: jsrun.Limits{Memory: 1 << 30}, HardMemory: 128 << 20},
	} {
		t.Run(name, func(t *testing.T) {
			if name == "hard limit" && raceBuild {
				t.Skip("race-detector workers have no hard memory limit")
			}
			cfg.Workers = 1
			p := newPool(t, cfg)
			if _, err := p.Run(context.Background(), quick, map[string]any{"n": 1}, 0); err != nil {
				t.Fatal(err)
			}
			before := p.pids()
			if _, err := p.Run(context.Background(), doubling, nil, 10*time.Second); !errors.Is(err, jsrun.ErrMemory) {
				t.Fatalf("doubling: %v, want ErrMemory", err)
			}
			res, err := p.Run(context.Background(), quick, map[string]any{"n": 1}, 0)
			if err != nil || fmt.Sprint(res.Value) != "map[v:2]" {
				t.Fatalf("run after the hostile one: %v, %v", res.Value, err)
			}
			if name == "hard limit" && slices.Equal(before, p.pids()) {
				t.Fatalf("worker %v was not replaced", before)
			}
		})
	}
}

// TestTimeoutAndBusy checks that a runaway loop gets jsrun.ErrTimeout and
// that a run finding no free worker within its time limit gets
// jsrun.ErrBusy.
func TestTimeoutAndBusy(t *testing.T) {
	p := newPool(t, Config{Workers: 1})
	spin := compile(t, `function main() { for (;;) {} }`)
	done := make(chan error, 1)
	go func() { _, err := p.Run(context.Background(), spin, nil, 300*time.Millisecond); done <- err }()
	for len(p.free) > 0 {
		time.Sleep(time.Millisecond)
	}
	if _, err := p.Run(context.Background(), spin, nil, 10*time.Millisecond); !errors.Is(err, jsrun.ErrBusy) {
		t.Fatalf("run with no free worker: %v, want ErrBusy", err)
	}
	if err := <-done; !errors.Is(err, jsrun.ErrTimeout) {
		t.Fatalf("spinning run: %v, want ErrTimeout", err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 100*time.Millisecond)
	defer cancel()
	if _, err := p.Run(ctx, spin, nil, time.Minute); !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("run whose context ended: %v", err)
	}
}

// TestUnresponsiveWorkerIsKilled runs a catastrophic regular expression,
// which goja's interrupt cannot stop (in-process it holds its goroutine
// and its turn for minutes), and wants jsrun.ErrTimeout once the time
// limit and the grace have passed, the worker killed and replaced, and the
// next run served.
func TestUnresponsiveWorkerIsKilled(t *testing.T) {
	p := newPool(t, Config{Workers: 1, Grace: 200 * time.Millisecond})
	quick := compile(t, `function main() { return { ok: true }; }`)
	if _, err := p.Run(context.Background(), quick, nil, 0); err != nil {
		t.Fatal(err)
	}
	old := p.pids()
	regexp := compile(t, `function main() { return { v: /^(a|aa)+\1?c$/.test("a".repeat(44) + "b") }; }`)
	if _, err := p.Run(context.Background(), regexp, nil, 200*time.Millisecond); !errors.Is(err, jsrun.ErrTimeout) {
		t.Fatalf("catastrophic regexp: %v, want ErrTimeout", err)
	}
	if res, err := p.Run(context.Background(), quick, nil, 5*time.Second); err != nil || fmt.Sprint(res.Value) != "map[ok:true]" {
		t.Fatalf("run after the kill: %v, %v", res.Value, err)
	}
	if now := p.pids(); len(now) != 1 || now[0] == old[0] {
		t.Fatalf("workers %v, want one replacing %v", now, old)
	}
	waitReaped(t, old[0])
}

// TestLargeResultIsRefused wants a result over MaxResult refused with an
// error that says so, by the worker, which then serves the next run.
func TestLargeResultIsRefused(t *testing.T) {
	p := newPool(t, Config{Workers: 1, MaxResult: 1 << 20})
	big := compile(t, `function main() { return { v: "x".repeat(2e6) }; }`)
	if _, err := p.Run(context.Background(), big, nil, 0); err == nil || !strings.Contains(err.Error(), "a code node may return") {
		t.Fatalf("large result: %v", err)
	}
	old := p.pids()
	if res, err := p.Run(context.Background(), compile(t, `function main() { return { v: "x".repeat(1000).length }; }`), nil, 0); err != nil ||
		fmt.Sprint(res.Value) != "map[v:1000]" {
		t.Fatalf("run after the large one: %v, %v", res.Value, err)
	}
	if !slices.Equal(old, p.pids()) {
		t.Fatalf("workers %v, want %v still", p.pids(), old)
	}
}

// TestWorkerKilledFromOutsideIsReplaced kills an idle worker and wants
// the next run to succeed in a new one.
func TestWorkerKilledFromOutsideIsReplaced(t *testing.T) {
	p := newPool(t, Config{Workers: 1})
	quick := compile(t, `function main() { return { ok: true }; }`)
	if _, err := p.Run(context.Background(), quick, nil, 0); err != nil {
		t.Fatal(err)
	}
	old := p.pids()
	if err := syscall.Kill(old[0], syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	waitReaped(t, old[0])
	if res, err := p.Run(context.Background(), quick, nil, 0); err != nil || fmt.Sprint(res.Value) != "map[ok:true]" {
		t.Fatalf("run after the kill: %v, %v", res.Value, err)
	}
	if now := p.pids(); len(now) != 1 || now[0] == old[0] {
		t.Fatalf("workers %v after killing %v", now, old)
	}
}

// waitReaped waits until the pool has reaped its worker pid, as it does
// as soon as the process ends.
func waitReaped(t *testing.T, pid int) {
	t.Helper()
	for deadline := time.Now().Add(10 * time.Second); time.Now().Before(deadline); time.Sleep(5 * time.Millisecond) {
		if _, err := os.Stat(fmt.Sprintf("/proc/%d", pid)); err != nil {
			return
		}
	}
	t.Fatalf("process %d was not reaped", pid)
}

// TestWorkerEnvironmentIsEmpty sets a secret in the test's environment
// and wants none of it in a worker's.
func TestWorkerEnvironmentIsEmpty(t *testing.T) {
	t.Setenv("PERGOLA_SECRET_KEY", "do-not-leak")
	t.Setenv("PERGOLA_DB_DSN", "root:pw@tcp(db)/x")
	p := newPool(t, Config{Workers: 1})
	if _, err := p.Run(context.Background(), compile(t, `function main() { return {}; }`), nil, 0); err != nil {
		t.Fatal(err)
	}
	env, err := os.ReadFile(fmt.Sprintf("/proc/%d/environ", p.pids()[0]))
	if err != nil {
		t.Skipf("cannot read a worker's environment here: %v", err)
	}
	for _, kv := range strings.Split(string(env), "\x00") {
		if strings.HasPrefix(kv, "PERGOLA_") || strings.Contains(kv, "do-not-leak") {
			t.Errorf("worker environment has %q", kv)
		}
	}
}

// TestCloseLeavesNoWorkers checks that Close ends and reaps every worker.
func TestCloseLeavesNoWorkers(t *testing.T) {
	p := newPool(t, Config{Workers: 2})
	if _, err := p.Run(context.Background(), compile(t, `function main() { return {}; }`), nil, 0); err != nil {
		t.Fatal(err)
	}
	pids := p.pids()
	if err := p.Close(); err != nil {
		t.Fatal(err)
	}
	for _, pid := range pids {
		if _, err := os.Stat(fmt.Sprintf("/proc/%d", pid)); err == nil {
			t.Errorf("worker %d is left after Close", pid)
		}
	}
	if _, err := p.Run(context.Background(), compile(t, `function main() { return {}; }`), nil, 0); err == nil {
		t.Fatal("run after Close succeeded")
	}
}

// Runs one after another reuse the started worker: a pool of four starts
// a second only for a second run at once.
func TestRunsReuseAStartedWorker(t *testing.T) {
	p := newPool(t, Config{Workers: 4})
	prog := compile(t, `function main() { return { ok: true }; }`)
	for i := range 3 {
		if _, err := p.Run(context.Background(), prog, nil, 5*time.Second); err != nil {
			t.Fatalf("run %d: %v", i, err)
		}
	}
	if pids := p.pids(); len(pids) != 1 {
		t.Fatalf("three runs one after another started %d workers, want 1", len(pids))
	}
	if len(p.free) != 4 {
		t.Fatalf("%d slots free after the runs, want all 4", len(p.free))
	}
}
