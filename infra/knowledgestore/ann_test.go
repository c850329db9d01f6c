package knowledgestore

import (
	"cmp"
	"fmt"
	"math/rand"
	"os"
	"strconv"
	"testing"
	"time"
)

// randomSet returns n vectors of dims dimensions: uniform on the sphere
// (clusters 0), or drawn around clusters centres with noise.
func randomSet(r *rand.Rand, n, dims, clusters int) [][]float32 {
	centres := make([][]float32, clusters)
	for i := range centres {
		centres[i] = gaussian(r, dims, 1)
	}
	out := make([][]float32, n)
	for i := range out {
		v := gaussian(r, dims, 1)
		if clusters > 0 {
			c := centres[r.Intn(clusters)]
			noise := gaussian(r, dims, 0.35)
			for j := range v {
				v[j] = c[j] + noise[j]
			}
		}
		out[i] = v
	}
	return out
}

func gaussian(r *rand.Rand, dims int, sigma float64) []float32 {
	v := make([]float32, dims)
	for i := range v {
		v[i] = float32(r.NormFloat64() * sigma)
	}
	return v
}

// recallAt10 is the share of the exact top 10 the ANN graph finds, over
// queries drawn like the data.
func recallAt10(t testing.TB, n, dims, clusters, queries int) float64 {
	bv, qs := graphFor(t, n, dims, clusters, queries)
	return measureRecall(bv, qs)
}

func graphFor(t testing.TB, n, dims, clusters, queries int) (*BaseVectors, [][]float32) {
	r := rand.New(rand.NewSource(int64(n*dims + clusters)))
	// Queries come from the same distribution (the same clusters) as the
	// data, as questions about a base's content do.
	all := randomSet(r, n+queries, dims, clusters)
	bv := NewBaseVectors(1, dims)
	for i, v := range all[:n] {
		if err := bv.Add(int64(i+1), 1, v); err != nil {
			t.Fatal(err)
		}
	}
	bv.annMin, bv.annSync = 1, true
	start := time.Now()
	if bv.graph() == nil {
		t.Fatal("no graph built")
	}
	t.Logf("n=%d dims=%d clusters=%d: graph built in %v", n, dims, clusters, time.Since(start))
	return bv, all[n:]
}

func measureRecall(bv *BaseVectors, queries [][]float32) float64 {
	found, total := 0, 0
	for _, q := range queries {
		q = Normalized(q)
		exact, ann := NewTopK(10), NewTopK(10)
		bv.SearchExact(q, nil, exact)
		bv.Search(q, nil, ann)
		got := map[int64]bool{}
		for _, s := range ann.Best() {
			got[s.ID] = true
		}
		for _, s := range exact.Best() {
			total++
			if got[s.ID] {
				found++
			}
		}
	}
	return float64(found) / float64(total)
}

// TestANNRecall: the HNSW graph finds at least 95% of the exact top 10,
// on clustered data (as embeddings of related texts are) and on uniform
// random data (the hard case). PERGOLA_ANN_N raises the base size.
func TestANNRecall(t *testing.T) {
	for _, c := range []struct{ n, dims, clusters int }{{3000, 128, 0}, {3000, 128, 20}, {1500, 768, 30}} {
		n := c.n
		if v, err := strconv.Atoi(os.Getenv("PERGOLA_ANN_N")); err == nil {
			n = v
		}
		recall := recallAt10(t, n, c.dims, c.clusters, 100)
		t.Logf("n=%d dims=%d clusters=%d: recall@10 %.3f", n, c.dims, c.clusters, recall)
		if recall < 0.95 {
			t.Errorf("recall@10 %.3f < 0.95 (n=%d dims=%d clusters=%d)", recall, n, c.dims, c.clusters)
		}
	}
}

// BenchmarkANNRecall measures recall@10 and search time against the beam
// width on larger bases (slow: it builds the graphs), e.g.
//
//	PERGOLA_ANN_N=20000 go test -run '^$' -bench ANNRecall -benchtime 1x ./infra/knowledgestore/
func BenchmarkANNRecall(b *testing.B) {
	n := 10000
	if v, err := strconv.Atoi(os.Getenv("PERGOLA_ANN_N")); err == nil {
		n = v
	}
	for _, c := range []struct{ dims, clusters int }{{128, 20}, {128, 0}} {
		bv, qs := graphFor(b, n, c.dims, c.clusters, 200)
		calibrated := bv.ann.Load().efQuery
		for _, ef := range []int{0, 64, 160, 400} { // 0: the calibrated beam
			b.Run(fmt.Sprintf("n=%d/dims=%d/clusters=%d/ef=%d", n, c.dims, c.clusters, ef), func(b *testing.B) {
				bv.ann.Load().efQuery = cmp.Or(ef, calibrated)
				var recall float64
				for b.Loop() {
					recall = measureRecall(bv, qs)
				}
				b.ReportMetric(recall, "recall@10")
				b.ReportMetric(float64(bv.ann.Load().efQuery), "ef")
			})
		}
	}
}
