package main

import (
	"fmt"
	"os"
	"strconv"
	"time"

	"github.com/pergola-ai/pergola/scripts/bench/internal/benchkit"
)

// chainStats are one chain size's measurements.
type chainStats struct {
	http, engine benchkit.Sample
	cpu          time.Duration
}

// perNodePhase runs each chain one at a time over HTTP and in the
// engine, interleaved (each round runs every size on both), and prints
// the latencies and the cost per node: (t_largest − t_smallest) / the
// nodes between them.
func perNodePhase(cl *benchkit.Client, ids map[int]string, sizes []int, o options) error {
	eng, err := newEngine(sizes)
	if err != nil {
		return err
	}
	stats := map[int]*chainStats{}
	for _, n := range sizes {
		stats[n] = &chainStats{}
	}
	for r := range o.warm + o.seq {
		for k := range sizes {
			n := sizes[(r+k)%len(sizes)]
			if err := measureChain(cl, ids[n], eng, n, stats[n], r >= o.warm, o.cpuPID, fmt.Sprintf("r%d", r)); err != nil {
				return err
			}
		}
	}
	printPerNode(sizes, stats, o)
	return nil
}

func measureChain(cl *benchkit.Client, id string, eng *engine, n int, st *chainStats, record bool, pid int, name string) error {
	cpu0 := benchkit.CPUTime(pid)
	took, err := pergolaRun(cl, id)(name)
	cpu := benchkit.CPUTime(pid) - cpu0
	if err != nil {
		return fmt.Errorf("%d nodes over HTTP: %w", n, err)
	}
	inProc, err := eng.run(n, name)
	if err != nil {
		return err
	}
	if record {
		st.http.Add(took)
		st.engine.Add(inProc)
		st.cpu += cpu
	}
	return nil
}

func printPerNode(sizes []int, stats map[int]*chainStats, o options) {
	fmt.Printf("\nChains of text nodes, one run at a time%s, %d runs each after %d warm-up runs; milliseconds\n",
		labelOf(o.label), o.seq, o.warm)
	var t benchkit.Table
	t.Row("nodes", "HTTP p50", "HTTP p99", "engine p50", "engine p99", "HTTP - engine p50", "server CPU/run")
	for _, n := range sizes {
		st := stats[n]
		cpu := "-"
		if o.cpuPID != 0 {
			cpu = benchkit.Ms(st.cpu / time.Duration(st.http.Len()))
		}
		t.Row(strconv.Itoa(n), benchkit.Ms(st.http.Pct(50)), benchkit.Ms(st.http.Pct(99)), benchkit.Ms(st.engine.Pct(50)),
			benchkit.Ms(st.engine.Pct(99)), benchkit.Ms(st.http.Pct(50)-st.engine.Pct(50)), cpu)
	}
	t.Print(os.Stdout)
	lo, hi := sizes[0], sizes[0]
	for _, n := range sizes {
		lo, hi = min(lo, n), max(hi, n)
	}
	if hi == lo {
		return
	}
	span := time.Duration(hi - lo)
	httpPer := (stats[hi].http.Pct(50) - stats[lo].http.Pct(50)) / span
	engPer := (stats[hi].engine.Pct(50) - stats[lo].engine.Pct(50)) / span
	fmt.Printf("cost per node, (t%d − t%d)/%d at p50: over HTTP %.1f µs, in the engine %.1f µs", hi, lo, hi-lo,
		float64(httpPer.Nanoseconds())/1e3, float64(engPer.Nanoseconds())/1e3)
	if engPer > 0 {
		fmt.Printf(" (%.1f×)", float64(httpPer)/float64(engPer))
	}
	fmt.Println()
}
