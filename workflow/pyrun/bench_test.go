package pyrun

import (
	"context"
	"testing"
	"time"
)

// BenchmarkPythonNode runs a small node's code after warm-up: one fresh
// sandboxed interpreter per run, taken from the warm pool.
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
