package knowledgestore

import (
	"math"
	"math/rand"
	"testing"
)

// TestDotMatchesScalar: the vectorised dot product agrees with the plain
// loop on every length from 0 to 100 and on 768.
func TestDotMatchesScalar(t *testing.T) {
	r := rand.New(rand.NewSource(3))
	for _, n := range append([]int{768, 1536}, seq(101)...) {
		a, b := gaussian(r, n, 1), gaussian(r, n, 1)
		got, want := Dot(a, b), dotScalar(a, b)
		if math.Abs(float64(got-want)) > 1e-4*math.Max(1, math.Abs(float64(want))) {
			t.Fatalf("n=%d: Dot = %v, scalar %v", n, got, want)
		}
	}
}

func seq(n int) []int {
	out := make([]int, n)
	for i := range out {
		out[i] = i
	}
	return out
}

// BenchmarkDot768 is one comparison of a search at 768 dimensions.
func BenchmarkDot768(b *testing.B) {
	r := rand.New(rand.NewSource(3))
	x, y := gaussian(r, 768, 1), gaussian(r, 768, 1)
	var s float32
	for b.Loop() {
		s += Dot(x, y)
	}
	_ = s
}

func BenchmarkDotScalar768(b *testing.B) {
	r := rand.New(rand.NewSource(3))
	x, y := gaussian(r, 768, 1), gaussian(r, 768, 1)
	var s float32
	for b.Loop() {
		s += dotScalar(x, y)
	}
	_ = s
}
