package cozeimport

import (
	"encoding/json"
	"fmt"

	"github.com/pergola-ai/pergola/workflow"
)

// nodeBatch is Coze's batch mode of a single node (not the batch node):
// the node runs for every item of its input list, and outputList holds
// its outputs item by item.
type nodeBatch struct {
	BatchEnable    bool         `json:"batchEnable"`
	BatchSize      any          `json:"batchSize"`
	ConcurrentSize any          `json:"concurrentSize"`
	InputLists     []*cozeParam `json:"inputLists"`
}

// itemSuffix names the node a batch-mode node becomes inside its batch.
const itemSuffix = "_item"

// batchWrapped converts a node in batch mode to a batch node of the same
// id whose body is the node itself, run per item; inside, the node's
// references to its input list read the batch's item, and the batch
// collects the node's outputs as outputList.
func (c *converter) batchWrapped(nc *nodeConv) (*workflow.Node, error) {
	n, b := nc.n, nc.in.Batch
	if len(b.InputLists) != 1 || b.InputLists[0] == nil {
		return c.unsupported(n, nc.at, fmt.Sprintf("batch mode iterates %d lists at once; Pergola iterates one", len(b.InputLists)))
	}
	c.batched[n.ID] = true
	inner, err := innerNode(n)
	if err != nil {
		return nil, err
	}
	c.byID[inner.ID], c.parents[inner.ID], c.ids[inner.ID] = inner, n, c.ids[n.ID]+itemSuffix
	body, err := c.graph([]*cozeNode{inner}, []cozeEdge{{SourceNodeID: n.ID, TargetNodeID: inner.ID}}, n, nc.at+".batch")
	if err != nil || len(body.Nodes) == 0 {
		return nil, err
	}
	nc.node.Type, nc.node.Body = "batch", body
	items, err := nc.input(b.InputLists[0].Input, "data.inputs.batch.inputLists[0]")
	if err != nil {
		return nil, err
	}
	nc.node.Inputs = map[string]workflow.Input{"items": items}
	cfg := map[string]any{"collect": map[string]workflow.Ref{"outputList": {Node: c.ids[inner.ID]}}}
	lim := workflow.DefaultLimits()
	cfg["concurrency"], cfg["batch_size"] = batchModeSize(b.ConcurrentSize, 10, lim.MaxParallel), batchModeSize(b.BatchSize, 100, lim.MaxIterations)
	c.report.Converted = append(c.report.Converted, NodeReport{ID: n.ID, PergolaID: c.ids[n.ID], Type: string(n.Type), PergolaType: "batch"})
	return nc.node, nc.config(cfg)
}

// innerNode is n without batch mode, with the outputs of one item: the
// fields of outputList's elements.
func innerNode(n *cozeNode) (*cozeNode, error) {
	var inputs map[string]json.RawMessage
	if err := json.Unmarshal(n.Data.Inputs, &inputs); err != nil {
		return nil, err
	}
	delete(inputs, "batch")
	raw, _ := json.Marshal(inputs)
	inner := &cozeNode{ID: n.ID + itemSuffix, Type: n.Type, Data: cozeData{NodeMeta: n.Data.NodeMeta, Inputs: raw}}
	for _, o := range n.Data.Outputs {
		var list struct {
			Name   string `json:"name"`
			Schema struct {
				Schema []json.RawMessage `json:"schema"`
			} `json:"schema"`
		}
		if json.Unmarshal(o, &list) == nil && list.Name == "outputList" {
			inner.Data.Outputs = list.Schema.Schema
		}
	}
	return inner, nil
}

// batchModeSize is a size of Coze's batch mode: the number given, Coze's
// default def when it is 0 or not a whole number, at most limit.
func batchModeSize(v any, def, limit int) int {
	if size, ok := wholeNumber(v); ok && size > 0 {
		return min(size, limit)
	}
	return min(def, limit)
}

// wholeNumber reads a number given as a number, a numeric text or a
// literal block input.
func wholeNumber(v any) (int, bool) {
	switch x := v.(type) {
	case float64:
		return int(x), x == float64(int(x))
	case string:
		var n int
		_, err := fmt.Sscan(x, &n)
		return n, err == nil
	case map[string]any:
		if val, ok := x["value"].(map[string]any); ok {
			return wholeNumber(val["content"])
		}
	}
	return 0, false
}
