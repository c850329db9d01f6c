package workflow

import (
	"context"
	"fmt"
	"runtime"
	"sync"
	"syscall"
	"testing"
	"time"
)

// benchWorkflow compiles testdata/bench_20.json: twenty nodes, no models.
func benchWorkflow(b *testing.B) (*Engine, *Definition) {
	b.Helper()
	def, err := Parse(loadGolden(b, "bench_20").Definition)
	if err != nil {
		b.Fatal(err)
	}
	return New(Config{}), def
}

var benchParams = map[string]any{"name": "Ada", "age": 36, "csv": "a,b,c"}

// BenchmarkCompile20 measures checking and compiling the 20-node workflow
// onto eino, without the cache.
func BenchmarkCompile20(b *testing.B) {
	eng, def := benchWorkflow(b)
	ctx := context.Background()
	b.ReportAllocs()
	defer reportCPU(b)()
	for i := 0; b.Loop(); i++ {
		if _, err := eng.compile(ctx, fmt.Sprint(i), def, CompileOptions{}, nil); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkRunCached20 measures one run of the compiled 20-node workflow
// (the compiled form taken from the cache, as every run after the first).
func BenchmarkRunCached20(b *testing.B) {
	eng, def := benchWorkflow(b)
	ctx := context.Background()
	b.ReportAllocs()
	defer reportCPU(b)()
	for b.Loop() {
		c, err := eng.Compile(ctx, "bench", def, CompileOptions{})
		if err != nil {
			b.Fatal(err)
		}
		if _, err := eng.Run(ctx, c, RunInput{RunID: 1, Params: benchParams}); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkRunsPerSecond20 runs the 20-node workflow from GOMAXPROCS
// goroutines and reports runs per second.
func BenchmarkRunsPerSecond20(b *testing.B) {
	eng, def := benchWorkflow(b)
	ctx := context.Background()
	c, err := eng.Compile(ctx, "bench", def, CompileOptions{})
	if err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	start := time.Now()
	var wg sync.WaitGroup
	work := make(chan struct{})
	for range runtime.GOMAXPROCS(0) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for range work {
				if _, err := eng.Run(ctx, c, RunInput{RunID: 1, Params: benchParams}); err != nil {
					b.Error(err)
				}
			}
		}()
	}
	for b.Loop() {
		work <- struct{}{}
	}
	close(work)
	wg.Wait()
	b.ReportMetric(float64(b.N)/time.Since(start).Seconds(), "runs/s")
}

// reportCPU reports the process CPU time per operation (user and system,
// garbage collection included): unlike ns/op it holds still when other
// processes load the machine.
func reportCPU(b *testing.B) func() {
	start := cpuTime()
	return func() {
		b.ReportMetric(float64((cpuTime()-start).Microseconds())/float64(b.N), "cpu-µs/op")
	}
}

func cpuTime() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// BenchmarkRunCodeNode measures a run of start, one code node and end: a
// fresh JavaScript VM per run dominates.
func BenchmarkRunCodeNode(b *testing.B) {
	def, err := Parse(loadGolden(b, "code").Definition)
	if err != nil {
		b.Fatal(err)
	}
	eng := New(Config{})
	ctx := context.Background()
	c, err := eng.Compile(ctx, "code", def, CompileOptions{})
	if err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	for b.Loop() {
		if _, err := eng.Run(ctx, c, RunInput{RunID: 1, Params: map[string]any{"nums": []any{1, 2, 3}}}); err != nil {
			b.Fatal(err)
		}
	}
}
