package workflow

import (
	"context"
	"fmt"
)

// batchKind runs its body for every item of an array, several at once.
type batchKind struct{}

type batchConfig struct {
	Concurrency int            `json:"concurrency,omitempty" jsonschema:"description=items run at once (default 4\\, at most the engine's parallelism limit); input concurrency\\, when it reads a value\\, takes its place"`
	BatchSize   int            `json:"batch_size,omitempty" jsonschema:"description=only the first batch_size items run\\, the others are left out (default: all\\, up to the engine's item limit); input batch_size\\, when it reads a value\\, takes its place"`
	Collect     map[string]Ref `json:"collect,omitempty" jsonschema:"description=output name → a body node's output collected from every item into an array\\, in item order"`
}

func (batchKind) describe() NodeTypeInfo {
	return NodeTypeInfo{Type: "batch", Title: "Batch", Category: categoryControl, Composite: true,
		Description: "Parallel map: runs its body for every item of input items, up to concurrency at once. Inside the " +
			"body the batch's id reads item and index. Outputs: each collect entry as an array in item order. The first " +
			"item that fails stops the others; an item that asks waits, keeping its place, while the others go on. " +
			"Optional inputs concurrency and batch_size, read when the node runs, set how many items run at once and " +
			"how many items run at all.",
		ConfigSchema: configSchema(&batchConfig{}),
		Inputs: []InputInfo{{Name: "items", Type: TypeArray, Required: true, Description: "the items"},
			{Name: "concurrency", Type: TypeInteger, Description: "items run at once; null or 0 takes config.concurrency, " +
				"more than the engine's parallelism limit takes the limit, less than 0 fails the node"},
			{Name: "batch_size", Type: TypeInteger, Description: "only the first batch_size items run, the others are " +
				"left out (Coze's batchSize); null or 0 takes config.batch_size, more than the engine's item limit takes " +
				"the limit, less than 0 fails the node"}}}
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
	if cfg.BatchSize < 0 || cfg.BatchSize > lim.MaxIterations {
		c.fail(nodeField(n, "config.batch_size"), "must be between 1 and %d (0 runs every item)", lim.MaxIterations)
	}
	if n.Body == nil {
		c.fail(nodeField(n, "body"), "is required: the nodes each item runs")
		return nil
	}
	br := &batchRunner{concurrency: cfg.Concurrency, batchSize: cfg.BatchSize, maxParallel: lim.MaxParallel, limit: lim.MaxIterations}
	spec := &nodeSpec{composite: true, blocking: true, runner: br, required: []string{"items"},
		want: map[string]Schema{"items": S(TypeArray), "concurrency": S(TypeInteger), "batch_size": S(TypeInteger)}}
	spec.finish = func(c *checker, info *nodeInfo) {
		for name := range info.inTypes {
			if name != "items" && name != "concurrency" && name != "batch_size" {
				c.fail(nodeField(n, "inputs."+name), "a batch node reads only items, concurrency and batch_size")
			}
		}
		info.vars = []Param{{Name: "item", Schema: itemSchema(info.inTypes["items"])}, P("index", TypeInteger)}
		br.collect = c.checkBody(info, cfg.Collect)
	}
	return spec
}

// batchRunner runs a batch node.
type batchRunner struct {
	concurrency int // config.concurrency, or 4
	batchSize   int // config.batch_size, 0 for every item
	maxParallel int // the engine's cap on concurrency
	limit       int // the engine's cap on items
	collect     []collectSpec
}

// Items and interrupts, as Coze Studio runs them: up to concurrency items
// run at once, in item order. An item that asks waits, keeping its place,
// while the others go on; an item that finishes frees its place for the
// next item. Once every item holding a place waits (or none is left), the
// batch stops and the run surfaces the interrupts. A resumed run replays
// the batch the same way: the finished items and the nodes before each
// question return what they did, the answered items go on, the others ask
// again, and the items after them start as places free. With concurrency
// 1 the items thus run one after the other.

func (b *batchRunner) run(ctx context.Context, x *nodeCtx, in map[string]any) (map[string]any, error) {
	items, concurrency, err := b.sizes(in)
	if err != nil {
		return nil, permanent(err)
	}
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	frames := make([]*frame, len(items))
	path := joinPath(x.f.path, x.pn.id)
	ended := make(chan itemEnd, len(items))
	var (
		firstErr               error
		next, holding, waiting int // items started; holding a place (running or waiting); waiting for an answer
	)
	for {
		for firstErr == nil && ctx.Err() == nil && holding < concurrency && next < len(items) {
			fr := x.rc.newFrame(x.pn.body, x.f, path, next)
			fr.item, frames[next] = items[next], fr
			go func(i int) { ended <- itemEnd{i, x.pn.body.invoke(ctx, fr)} }(next)
			next, holding = next+1, holding+1
		}
		if holding == waiting {
			break
		}
		e := <-ended
		switch {
		case e.err == nil:
			holding--
		case ctx.Err() == nil && x.rc.interrupted() != nil:
			waiting++ // it asked, or stopped because another node asked
		default:
			holding--
			if firstErr == nil {
				firstErr = bodyError(ctx, frames[e.i], fmt.Sprintf("item %d", e.i), e.err)
			}
			cancel()
		}
	}
	switch {
	case firstErr != nil:
		return nil, firstErr
	case ctx.Err() != nil:
		return nil, ctx.Err()
	case waiting > 0:
		return nil, errInterrupted
	}
	col := newCollected(b.collect, len(items))
	for i, fr := range frames {
		col.add(fr, i)
	}
	return col.outputs(), nil
}

// itemEnd is how one item of a batch ended.
type itemEnd struct {
	i   int
	err error
}

// sizes reads the batch's items and concurrency, as Coze Studio reads its
// batchSize and concurrentSize: inputs batch_size and concurrency above 0
// replace the configured sizes, at most the engine's limits; null or 0
// leaves the configured ones (an import configures Coze's defaults for
// 0: 100 items, 10 at once). A size below 0, which breaks Coze's node, is
// refused naming it. Only the first batch_size items run; without a
// batch size, more items than the engine's limit fail the node.
func (b *batchRunner) sizes(in map[string]any) ([]any, int, error) {
	items, _ := in["items"].([]any)
	size, err := batchSize(in, "batch_size", b.limit)
	if err != nil {
		return nil, 0, err
	}
	if size == 0 {
		size = b.batchSize
	}
	if size > 0 {
		items = items[:min(size, len(items))]
	}
	if len(items) > b.limit {
		return nil, 0, fmt.Errorf("%d items, more than the limit of %d", len(items), b.limit)
	}
	concurrency, err := batchSize(in, "concurrency", b.maxParallel)
	if concurrency == 0 {
		concurrency = b.concurrency
	}
	return items, concurrency, err
}

// batchSize reads the integer input name, 0 when null, at most limit.
func batchSize(in map[string]any, name string, limit int) (int, error) {
	switch v := in[name].(type) {
	case nil:
		return 0, nil
	case int64:
		if v < 0 {
			return 0, fmt.Errorf("input %s must be 0 or more, got %d", name, v)
		}
		return int(min(v, int64(limit))), nil
	default:
		return 0, fmt.Errorf("input %s must be an integer, got %s", name, describeType(v))
	}
}
