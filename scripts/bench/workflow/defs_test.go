package main

import (
	"testing"

	wf "github.com/pergola-ai/pergola/workflow"
)

// TestChainsEchoTheName compiles the benchmark's chains in the engine and
// runs them: each returns its input as "out".
func TestChainsEchoTheName(t *testing.T) {
	sizes := []int{2, 3, 20, 100}
	eng, err := newEngine(sizes)
	if err != nil {
		t.Fatal(err)
	}
	for _, n := range sizes {
		if _, err := eng.run(n, "Ada"); err != nil {
			t.Errorf("%d nodes: %v", n, err)
		}
		def, err := wf.Parse(chain(n))
		if err != nil {
			t.Fatal(err)
		}
		if got := len(def.Nodes); got != n {
			t.Errorf("chain(%d) has %d nodes", n, got)
		}
	}
}
