package jsrun

import (
	"context"
	"testing"
)

// BenchmarkRunSmall measures one run of a small, well-behaved script: a
// fresh VM, the guards, the watch and the result's export.
func BenchmarkRunSmall(b *testing.B) {
	r := NewRunner(Limits{})
	p, err := Compile(`function main({ params }) {
  const words = params.csv.split(",").map(w => w.toUpperCase());
  return { n: words.length, text: JSON.stringify({ words, name: params.name }) };
}`)
	if err != nil {
		b.Fatal(err)
	}
	params := map[string]any{"csv": "a,b,c,d", "name": "Ada"}
	b.ReportAllocs()
	for b.Loop() {
		if _, err := r.Run(context.Background(), p, params, 0); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkRunParallel measures small runs from GOMAXPROCS goroutines at
// once, through the runner's bound on concurrent runs.
func BenchmarkRunParallel(b *testing.B) {
	r := NewRunner(Limits{})
	p, err := Compile(`function main({ params }) { return { v: params.n * 2 }; }`)
	if err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	b.RunParallel(func(pb *testing.PB) {
		for pb.Next() {
			if _, err := r.Run(context.Background(), p, map[string]any{"n": 21}, 0); err != nil {
				b.Error(err)
				return
			}
		}
	})
}
