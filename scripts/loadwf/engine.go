package main

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"time"

	wf "github.com/pergola-ai/pergola/workflow"
)

// chain is a workflow of n nodes: start, n-2 text nodes in a line, each
// passing the name on through a template, and end.
func chain(n int) map[string]any {
	nodes := []map[string]any{{"id": "start", "type": "start",
		"outputs": []map[string]any{{"name": "name", "type": "string", "required": true}}}}
	var edges []map[string]any
	prev, field := "start", "name"
	for i := 1; i <= n-2; i++ {
		id := fmt.Sprintf("t%d", i)
		nodes = append(nodes, map[string]any{"id": id, "type": "text",
			"config": map[string]any{"op": "template", "template": "{{x}}"},
			"inputs": map[string]any{"x": map[string]any{"ref": map[string]any{"node": prev, "path": field}}}})
		edges = append(edges, map[string]any{"from": prev, "to": id})
		prev, field = id, "output"
	}
	nodes = append(nodes, map[string]any{"id": "end", "type": "end",
		"inputs": map[string]any{"out": map[string]any{"ref": map[string]any{"node": prev, "path": field}}}})
	edges = append(edges, map[string]any{"from": prev, "to": "end"})
	return map[string]any{"nodes": nodes, "edges": edges}
}

// engineCost compiles the definition in an engine without ports or
// history, as the engine's benchmarks do, and returns the median of
// batches of runs, per run.
func engineCost(def map[string]any, runs int) (time.Duration, error) {
	b, _ := json.Marshal(def)
	d, err := wf.Parse(b)
	if err != nil {
		return 0, err
	}
	eng := wf.New(wf.Config{})
	ctx := context.Background()
	c, err := eng.Compile(ctx, "load", d, wf.CompileOptions{})
	if err != nil {
		return 0, err
	}
	const batches = 20
	per := max(1, runs/batches)
	var took []time.Duration
	for range batches {
		t0 := time.Now()
		for range per {
			if _, err := eng.Run(ctx, c, wf.RunInput{RunID: 1, Params: map[string]any{"name": "Ada"}}); err != nil {
				return 0, err
			}
		}
		took = append(took, time.Since(t0)/time.Duration(per))
	}
	slices.Sort(took)
	return took[len(took)/2], nil
}

// pct returns the p-th percentile of durations, sorting them.
func pct(d []time.Duration, p int) time.Duration {
	slices.Sort(d)
	return d[min(len(d)-1, len(d)*p/100)].Round(time.Microsecond)
}
