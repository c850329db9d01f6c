package jsproc

import (
	"context"
	"log/slog"
	"testing"

	"github.com/pergola-ai/pergola/workflow/jsrun"
)

// smallCode is a small, well-behaved code node.
const smallCode = `function main({ params }) {
  const words = params.csv.split(",").map(w => w.toUpperCase());
  return { n: words.length, text: JSON.stringify({ words, name: params.name }) };
}`

// BenchmarkSmall measures one run of a small code node in-process and in
// a warm worker process (the request and response over pipes, the
// worker's cached compiled program, a fresh VM there), one at a time.
func BenchmarkSmall(b *testing.B) {
	prog, err := jsrun.Compile(smallCode)
	if err != nil {
		b.Fatal(err)
	}
	local := jsrun.NewRunner(jsrun.Limits{})
	pool := New(Config{Command: workerCommand(), Workers: 1, Log: slog.New(slog.DiscardHandler)})
	defer pool.Close()
	runners := []struct {
		name string
		run  func(context.Context, *jsrun.Program, map[string]any) error
	}{
		{"inprocess", func(ctx context.Context, p *jsrun.Program, in map[string]any) error {
			_, err := local.Run(ctx, p, in, 0)
			return err
		}},
		{"process", func(ctx context.Context, p *jsrun.Program, in map[string]any) error {
			_, err := pool.Run(ctx, p, in, 0)
			return err
		}},
	}
	params := map[string]any{"csv": "a,b,c,d", "name": "Ada"}
	for _, r := range runners {
		b.Run(r.name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				if err := r.run(context.Background(), prog, params); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// BenchmarkColdWorker measures a run that starts its worker first, as the
// first run on each of a pool's workers does and the run after one was
// replaced may: the process start and the run, then its end.
func BenchmarkColdWorker(b *testing.B) {
	prog, err := jsrun.Compile(smallCode)
	if err != nil {
		b.Fatal(err)
	}
	params := map[string]any{"csv": "a,b,c,d", "name": "Ada"}
	for b.Loop() {
		pool := New(Config{Command: workerCommand(), Workers: 1, Log: slog.New(slog.DiscardHandler)})
		if _, err := pool.Run(context.Background(), prog, params, 0); err != nil {
			b.Fatal(err)
		}
		_ = pool.Close()
	}
}
