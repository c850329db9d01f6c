package main

import (
	"context"
	"encoding/json"
	"fmt"
	"time"

	wf "github.com/pergola-ai/pergola/workflow"
)

// chain returns a workflow of n nodes (n ≥ 2): start, n−2 text nodes in a
// line each passing the name on through a template, and end returning it
// as "out". With n = 2 it is Start → End echoing the input.
func chain(n int) json.RawMessage {
	ref := func(node, path string) map[string]any {
		return map[string]any{"ref": map[string]any{"node": node, "path": path}}
	}
	nodes := []map[string]any{{"id": "start", "type": "start",
		"outputs": []map[string]any{{"name": "name", "type": "string", "required": true}}}}
	var edges []map[string]any
	prev, field := "start", "name"
	for i := 1; i <= n-2; i++ {
		id := fmt.Sprintf("t%d", i)
		nodes = append(nodes, map[string]any{"id": id, "type": "text",
			"config": map[string]any{"op": "template", "template": "{{x}}"}, "inputs": map[string]any{"x": ref(prev, field)}})
		edges = append(edges, map[string]any{"from": prev, "to": id})
		prev, field = id, "output"
	}
	nodes = append(nodes, map[string]any{"id": "end", "type": "end", "inputs": map[string]any{"out": ref(prev, field)}})
	edges = append(edges, map[string]any{"from": prev, "to": "end"})
	b, _ := json.Marshal(map[string]any{"nodes": nodes, "edges": edges})
	return b
}

// engine runs the chains in this process on an engine without ports or
// history, as the engine's own benchmarks do: the cost of the nodes alone.
type engine struct {
	eng      *wf.Engine
	compiled map[int]*wf.Compiled
}

func newEngine(sizes []int) (*engine, error) {
	e := &engine{eng: wf.New(wf.Config{}), compiled: map[int]*wf.Compiled{}}
	for _, n := range sizes {
		def, err := wf.Parse(chain(n))
		if err != nil {
			return nil, err
		}
		if e.compiled[n], err = e.eng.Compile(context.Background(), fmt.Sprint("chain-", n), def, wf.CompileOptions{}); err != nil {
			return nil, err
		}
	}
	return e, nil
}

// run runs the n-node chain once and checks it echoed the name.
func (e *engine) run(n int, name string) (time.Duration, error) {
	t0 := time.Now()
	res, err := e.eng.Run(context.Background(), e.compiled[n], wf.RunInput{RunID: 1, Params: map[string]any{"name": name}})
	took := time.Since(t0)
	if err != nil {
		return took, err
	}
	if out, _ := res.Output["out"].(string); out != name {
		return took, fmt.Errorf("engine: %d nodes answered %v, want out %q", n, res.Output, name)
	}
	return took, nil
}
