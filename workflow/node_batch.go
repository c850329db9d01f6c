package workflow

import (
	"context"
	"fmt"
	"sync"
)

// batchKind runs its body for every item of an array, several at once.
type batchKind struct{}

type batchConfig struct {
	Concurrency int            `json:"concurrency,omitempty" jsonschema:"description=items run at once (default 4\\, at most the engine's parallelism limit)"`
	Collect     map[string]Ref `json:"collect,omitempty" jsonschema:"description=output name → a body node's output collected from every item into an array\\, in item order"`
}

func (batchKind) describe() NodeTypeInfo {
	return NodeTypeInfo{Type: "batch", Title: "Batch", Category: categoryControl, Composite: true,
		Description: "Parallel map: runs its body for every item of input items, up to concurrency at once. Inside the " +
			"body the batch's id reads item and index. Outputs: each collect entry as an array in item order. The first " +
			"item that fails stops the others.",
		ConfigSchema: configSchema(&batchConfig{}),
		Inputs:       []InputInfo{{Name: "items", Type: TypeArray, Required: true, Description: "the items"}}}
}

func (batchKind) check(c *checker, n *Node) *nodeSpec {
	var cfg batchConfig
	if !c.decodeConfig(n, &cfg) {
		return nil
	}
	c.noOutputs(n)
	lim := c.eng.limits
	if cfg.Concurrency < 0 || cfg.Concurrency > lim.MaxParallel {
		c.fail(nodeField(n, "config.concurrency"), "must be between 1 and %d (0 takes 4)", lim.MaxParallel)
	}
	if cfg.Concurrency == 0 {
		cfg.Concurrency = min(4, lim.MaxParallel)
	}
	if n.Body == nil {
		c.fail(nodeField(n, "body"), "is required: the nodes each item runs")
		return nil
	}
	br := &batchRunner{concurrency: cfg.Concurrency, limit: lim.MaxIterations}
	spec := &nodeSpec{composite: true, blocking: true, runner: br, required: []string{"items"},
		want: map[string]Schema{"items": S(TypeArray)}}
	spec.finish = func(c *checker, info *nodeInfo) {
		for name := range info.inTypes {
			if name != "items" {
				c.fail(nodeField(n, "inputs."+name), "a batch node reads only items")
			}
		}
		info.vars = []Param{{Name: "item", Schema: itemSchema(info.inTypes["items"])}, P("index", TypeInteger)}
		br.collect = c.checkBody(info, cfg.Collect)
	}
	return spec
}

// batchRunner runs a batch node.
type batchRunner struct {
	concurrency int
	limit       int
	collect     []collectSpec
}

func (b *batchRunner) run(ctx context.Context, x *nodeCtx, in map[string]any) (map[string]any, error) {
	items, _ := in["items"].([]any)
	if len(items) > b.limit {
		return nil, permanent(fmt.Errorf("%d items, more than the limit of %d", len(items), b.limit))
	}
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	frames := make([]*frame, len(items))
	path := joinPath(x.f.path, x.pn.id)
	var (
		wg       sync.WaitGroup
		mu       sync.Mutex
		firstErr error
	)
	slots := make(chan struct{}, b.concurrency)
	for i := range items {
		select {
		case slots <- struct{}{}:
		case <-ctx.Done():
		}
		if ctx.Err() != nil {
			break
		}
		fr := x.rc.newFrame(x.pn.body, x.f, path, i)
		fr.item, frames[i] = items[i], fr
		wg.Add(1)
		go func() {
			defer wg.Done()
			defer func() { <-slots }()
			if err := x.pn.body.invoke(ctx, fr); err != nil {
				mu.Lock()
				if firstErr == nil {
					firstErr = bodyError(ctx, fr, fmt.Sprintf("item %d", i), err)
				}
				if x.rc.interrupted() == nil {
					cancel() // an interrupt lets the other items finish: they are kept for the resume
				}
				mu.Unlock()
			}
		}()
	}
	wg.Wait()
	if firstErr != nil {
		return nil, firstErr
	}
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	col := newCollected(b.collect, len(items))
	for i, fr := range frames {
		col.add(fr, i)
	}
	return col.outputs(), nil
}
