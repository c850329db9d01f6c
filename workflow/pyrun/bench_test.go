package pyrun

import (
	"context"
	"testing"
	"time"
)

// BenchmarkSmallNode runs a small node's code after warm-up: one fresh
// sandboxed interpreter per run, taken from the warm pool.
//
//	go test ./workflow/pyrun -bench SmallNode -benchtime 100x
func BenchmarkSmallNode(b *testing.B) {
	r := newRunner(b, Limits{Warm: 4})
	code := "def main(args):\n    return {'sum': sum(args.params['n'])}\n"
	params := map[string]any{"n": []any{1, 2, 3}}
	if _, err := r.Run(context.Background(), code, params, 0); err != nil { // warm-up
		b.Fatal(err)
	}
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		b.StopTimer()
		for len(r.warm) == 0 { // runs arrive slower than sandboxes start: one waits, warm
			time.Sleep(5 * time.Millisecond)
		}
		b.StartTimer()
		if _, err := r.Run(context.Background(), code, params, 0); err != nil {
			b.Fatal(err)
		}
	}
}
