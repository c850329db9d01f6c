package cozeimport

import (
	"encoding/json"
	"fmt"
	"slices"
)

// Reference is a Coze workflow a canvas runs: a sub-workflow node (type
// 9) or a workflow skill of an LLM node (type 3).
type Reference struct {
	// NodeID and Type name the node, At where it is (nodes[<id>] or
	// nodes[<loop>].blocks[<id>]) and Field the setting holding the id.
	NodeID     string `json:"node_id"`
	Type       string `json:"type"`
	At         string `json:"at"`
	Field      string `json:"field"`
	WorkflowID string `json:"workflow_id"`
}

// Describe names the reference for messages: nodes[<id>] (type 9)
// data.inputs.workflowId = <workflow id>.
func (r Reference) Describe() string {
	return fmt.Sprintf("%s (type %s) %s = %s", r.At, r.Type, r.Field, r.WorkflowID)
}

// References lists the Coze workflows a canvas runs, bodies included, in
// the canvas's order. A canvas that cannot be read fails as in Convert.
func References(data []byte) ([]Reference, error) {
	cv, err := readCanvas(data)
	if err != nil {
		return nil, err
	}
	var out []Reference
	err = walkNodes(cv.Nodes, "nodes", func(n *cozeNode, at string) error {
		refs, err := nodeReferences(n, at)
		out = append(out, refs...)
		return err
	})
	return out, err
}

// ReferencedIDs lists the distinct workflow ids of refs, sorted.
func ReferencedIDs(refs []Reference) []string {
	var ids []string
	for _, r := range refs {
		if !slices.Contains(ids, r.WorkflowID) {
			ids = append(ids, r.WorkflowID)
		}
	}
	slices.Sort(ids)
	return ids
}

// walkNodes calls fn on every node, then on the nodes of its body.
func walkNodes(nodes []*cozeNode, at string, fn func(n *cozeNode, at string) error) error {
	for _, n := range nodes {
		if n == nil {
			continue
		}
		here := fmt.Sprintf("%s[%s]", at, n.ID)
		if err := fn(n, here); err != nil {
			return err
		}
		if err := walkNodes(n.Blocks, here+".blocks", fn); err != nil {
			return err
		}
	}
	return nil
}

// nodeReferences lists the workflows one node runs.
func nodeReferences(n *cozeNode, at string) ([]Reference, error) {
	typ := string(n.Type)
	if typ != "9" && typ != "3" {
		return nil, nil
	}
	in, err := decodeInputs(n, at)
	if err != nil {
		return nil, err
	}
	ref := Reference{NodeID: n.ID, Type: typ, At: at}
	if typ == "9" {
		ref.Field, ref.WorkflowID = "data.inputs.workflowId", string(in.WorkflowID)
		return []Reference{ref}, nil
	}
	if in.FCParam == nil || in.FCParam.WorkflowFCParam == nil {
		return nil, nil
	}
	var out []Reference
	for i, w := range in.FCParam.WorkflowFCParam.WorkflowList {
		ref.Field = fmt.Sprintf("data.inputs.fcParam.workflowFCParam.workflowList[%d].workflow_id", i)
		ref.WorkflowID = string(w.WorkflowID)
		out = append(out, ref)
	}
	return out, nil
}

// canvasOf returns the canvas of a Coze Studio export file (.flow: an
// object of type coze-workflow-export-data holding the canvas as json),
// or data itself when it is a plain canvas.
func canvasOf(data []byte) (json.RawMessage, string) {
	var file struct {
		Type   string `json:"type"`
		Source struct {
			WorkflowID flexString `json:"workflowId"`
		} `json:"source"`
		JSON json.RawMessage `json:"json"`
	}
	if json.Unmarshal(data, &file) == nil && file.Type == exportFileType && len(file.JSON) > 0 {
		return file.JSON, string(file.Source.WorkflowID)
	}
	return data, ""
}

// exportFileType marks a workflow exported from Coze Studio's editor (a
// .flow file).
const exportFileType = "coze-workflow-export-data"
