package main

import (
	"fmt"
	"math/rand"
	"os"
	"time"

	"github.com/pergola-ai/pergola/scripts/bench/internal/benchkit"
)

// strategy is one search strategy, numbered as Coze's search_strategy.
type strategy struct {
	name string
	code int
	lat  benchkit.Sample
	hits int
	cpu  time.Duration // the server's CPU time over the measured searches
}

// searchPhase times one cold semantic search (the first after ingestion
// loads the base's vectors on the embedded default), then the three
// strategies in turn, one search each per round so that all see the same
// machine over time.
func (b *bench) searchPhase() error {
	r := rand.New(rand.NewSource(int64(b.o.seed) + 11))
	cold, _, err := b.search(0, b.corpus.query(r, b.o.docs, b.o.chunksPerDoc))
	if err != nil {
		return err
	}
	b.memory("after the first search")
	strategies := []*strategy{{name: "semantic", code: 0}, {name: "full text", code: 20}, {name: "hybrid", code: 1}}
	for round := range b.o.warm + b.o.searches {
		for k := range strategies {
			s := strategies[(round+k)%len(strategies)]
			cpu0 := benchkit.CPUTime(b.o.pid)
			d, hits, err := b.search(s.code, b.corpus.query(r, b.o.docs, b.o.chunksPerDoc))
			if err != nil {
				return fmt.Errorf("%s: %w", s.name, err)
			}
			if round >= b.o.warm {
				s.lat.Add(d)
				s.hits += hits
				s.cpu += benchkit.CPUTime(b.o.pid) - cpu0
			}
		}
	}
	b.reportSearch(strategies, cold)
	return nil
}

// search runs one POST /api/knowledge/{id}/search and returns its time
// and the hits. A search that finds nothing is an error: every query
// quotes a chunk of the base.
func (b *bench) search(code int, query string) (time.Duration, int, error) {
	body := map[string]any{"query": query, "search_strategy": code, "top_k": b.o.topK}
	start := time.Now()
	env, err := b.cl.Call("POST", "/api/knowledge/"+b.kb+"/search", body, 200)
	took := time.Since(start)
	if err != nil {
		return 0, 0, err
	}
	var out struct {
		Hits []struct {
			Score float64 `json:"score"`
		} `json:"hits"`
	}
	if err := env.Into(&out); err != nil {
		return 0, 0, err
	}
	if len(out.Hits) == 0 {
		return 0, 0, fmt.Errorf("no hit for %q", query)
	}
	return took, len(out.Hits), nil
}

func (b *bench) reportSearch(strategies []*strategy, cold time.Duration) {
	fmt.Printf("\nPOST /api/knowledge/{id}/search%s: %d chunks, top_k %d, %d searches per strategy after %d warm-up; milliseconds\n",
		label(b.o.label), b.chunks, b.o.topK, b.o.searches, b.o.warm)
	var t benchkit.Table
	t.Row("strategy", "p50", "p99", "mean", "server CPU/search", "hits/search")
	for _, s := range strategies {
		t.Row(s.name, benchkit.Ms(s.lat.Pct(50)), benchkit.Ms(s.lat.Pct(99)), benchkit.Ms(s.lat.Mean()),
			cpuPer(s.cpu, s.lat.Len(), b.o.pid), fmt.Sprintf("%.1f", float64(s.hits)/float64(max(1, s.lat.Len()))))
	}
	t.Print(os.Stdout)
	fmt.Println("server CPU: the server process's user+system time over the measured requests (10 ms ticks, averaged), which a busy machine inflates less than latency.")
	fmt.Printf("first (cold) semantic search after ingestion: %s ms; %s\n", benchkit.Ms(cold), loadAvg())
}

// cpuPer is the server's average CPU time per request, "-" without -pid.
func cpuPer(total time.Duration, n, pid int) string {
	if pid == 0 || n == 0 {
		return "-"
	}
	return benchkit.Ms(total / time.Duration(n))
}
