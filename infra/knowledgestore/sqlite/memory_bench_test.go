package sqlite

import (
	"context"
	"runtime"
	"runtime/debug"
	"testing"

	"github.com/pergola-ai/pergola/infra/knowledgestore/indextest"
	"github.com/pergola-ai/pergola/infra/testenv"
)

// BenchmarkMemory100k reports the resident memory a searched base of
// 100,000 chunks of 768 dimensions adds (its vectors cached for exact
// search; the HNSW graph adds its links when built). Slow: it loads the
// base first.
//
//	go test -run '^$' -bench Memory100k -benchtime 1x -timeout 60m ./infra/knowledgestore/sqlite/
func BenchmarkMemory100k(b *testing.B) {
	ix := openTemp(b, WithANNThreshold(0))
	queries := indextest.LoadBench(b, ix, 100000, benchDims)
	debug.FreeOSMemory()
	before := testenv.ProcStatus(b, "VmRSS")
	for b.Loop() {
		if _, err := ix.SearchVector(context.Background(), indextest.BenchScope, queries[0], 10); err != nil {
			b.Fatal(err)
		}
	}
	peak := testenv.ProcStatus(b, "VmRSS")
	debug.FreeOSMemory() // what the process holds once the garbage is returned
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	after := testenv.ProcStatus(b, "VmRSS")
	b.ReportMetric(float64(peak)/(1<<20), "rss-at-load-MiB")
	b.ReportMetric(float64(after)/(1<<20), "rss-MiB")
	b.ReportMetric(float64(after-before)/(1<<20), "rss-added-MiB")
	b.ReportMetric(float64(ms.HeapAlloc)/(1<<20), "live-heap-MiB")
}
