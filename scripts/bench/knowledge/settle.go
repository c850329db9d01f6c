package main

import (
	"fmt"
	"time"

	"github.com/pergola-ai/pergola/scripts/bench/internal/benchkit"
)

// settle waits, after the ingestion, until the server's background work
// is done (it builds the HNSW graph of a large base in the background
// once the base is loaded, and loads a base again once writes to it
// pause, 2 s after the last write): until the server uses under 5 % of
// a core over two 2-second windows in a row, or -settle has passed. It prints how long that took and the CPU the
// server spent meanwhile, so that the phases measure the steady state
// and the one-time cost is stated.
func (b *bench) settle() {
	if b.o.pid == 0 || b.o.settle <= 0 {
		return
	}
	start, cpu0 := time.Now(), benchkit.CPUTime(b.o.pid)
	for idle := 0; idle < 2 && time.Since(start) < b.o.settle; {
		c := benchkit.CPUTime(b.o.pid)
		time.Sleep(2 * time.Second)
		idle++
		if benchkit.CPUTime(b.o.pid)-c >= 100*time.Millisecond {
			idle = 0
		}
	}
	fmt.Printf("settled after the ingestion in %.1f s: the server's background work (base loaded, HNSW graph built) took %.2f s of CPU; %s\n",
		time.Since(start).Seconds(), (benchkit.CPUTime(b.o.pid) - cpu0).Seconds(), loadAvg())
}
