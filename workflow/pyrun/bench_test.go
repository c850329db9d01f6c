package pyrun

import (
	"context"
	"slices"
	"testing"
	"time"
)

// BenchmarkPythonNode runs a small node's code after warm-up: one fresh
// sandboxed process per run, forked from the workspace's server.
//
//	go test ./workflow/pyrun -run XXX -bench PythonNode -benchtime 50x
func BenchmarkPythonNode(b *testing.B) {
	r := newRunner(b, Limits{Warm: 4})
	code := "def main(args):\n    return {'sum': sum(args.params['n'])}\n"
	params := map[string]any{"n": []any{1, 2, 3}}
	if _, err := r.Run(context.Background(), code, params, 0); err != nil { // warm-up
		b.Fatal(err)
	}
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		b.StopTimer()
		for r.pool.idleCount() == 0 { // runs arrive slower than sandboxes start: one waits, warm
			time.Sleep(5 * time.Millisecond)
		}
		b.StartTimer()
		if _, err := r.Run(context.Background(), code, params, 0); err != nil {
			b.Fatal(err)
		}
	}
	b.StopTimer()
	r.Close()
}

// BenchmarkPythonNodeCold runs it with no warm interpreter: the sandbox
// starts (bwrap, python3, the standard library's imports) within the run.
func BenchmarkPythonNodeCold(b *testing.B) {
	r := newRunner(b, Limits{Warm: 1})
	r.Close() // no pool: every run starts its sandbox
	code := "def main(args):\n    return {'sum': sum(args.params['n'])}\n"
	params := map[string]any{"n": []any{1, 2, 3}}
	for i := 0; i < b.N; i++ {
		if _, err := r.Run(context.Background(), code, params, 0); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkPythonNodeBackToBack runs the node one run after another with
// no pause, as scripts/bench-fairshare.sh's "python alone" phase does over
// HTTP, with the server's settings on two cores: past the warm-up each run
// forks from the workspace's server (with Zygotes -1, each takes a sandbox
// the pool must replace, so the pace is how fast sandboxes start). It
// reports the latencies' p50 and p99 and the share of runs that found no
// warm sandbox in the pool (empty/op: runs that fork need none).
func BenchmarkPythonNodeBackToBack(b *testing.B) {
	r := newRunner(b, Limits{Parallel: 8, DemoteAfter: 200 * time.Millisecond})
	code := "def main(args):\n    return {\"v\": args.params[\"n\"] * 2}\n"
	for i := range 20 { // warm-up: the pool grows to demand
		if _, err := r.Run(context.Background(), code, map[string]any{"n": i}, 0); err != nil {
			b.Fatal(err)
		}
	}
	took, empty := make([]time.Duration, 0, b.N), 0
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if r.pool.idleCount() == 0 {
			empty++
		}
		start := time.Now()
		if _, err := r.Run(context.Background(), code, map[string]any{"n": i}, 0); err != nil {
			b.Fatal(err)
		}
		took = append(took, time.Since(start))
	}
	b.StopTimer()
	slices.Sort(took)
	b.ReportMetric(float64(took[len(took)/2].Microseconds())/1000, "p50-ms")
	b.ReportMetric(float64(took[len(took)*99/100].Microseconds())/1000, "p99-ms")
	b.ReportMetric(float64(empty)/float64(b.N), "empty/op")
	r.Close()
}
