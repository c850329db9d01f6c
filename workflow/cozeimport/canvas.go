package cozeimport

import (
	"bytes"
	"encoding/json"
	"strconv"
)

// canvas is a workflow as Coze Studio exports it: nodes with numeric types,
// the bodies of loops and batches as blocks, and edges joining ports.
type canvas struct {
	Nodes []*cozeNode `json:"nodes"`
	Edges []cozeEdge  `json:"edges"`
}

// cozeNode is one node of a canvas. Its settings live in data.inputs,
// whose shape depends on the type.
type cozeNode struct {
	ID     string      `json:"id"`
	Type   numericType `json:"type"`
	Data   cozeData    `json:"data"`
	Blocks []*cozeNode `json:"blocks,omitempty"`
	Edges  []cozeEdge  `json:"edges,omitempty"`
}

// cozeData holds a node's title, its settings and its outputs.
type cozeData struct {
	NodeMeta *struct {
		Title string `json:"title"`
	} `json:"nodeMeta,omitempty"`
	Inputs  json.RawMessage   `json:"inputs,omitempty"`
	Outputs []json.RawMessage `json:"outputs,omitempty"`
}

// cozeEdge joins the port of one node to another node.
type cozeEdge struct {
	SourceNodeID string `json:"sourceNodeID"`
	TargetNodeID string `json:"targetNodeID"`
	SourcePortID string `json:"sourcePortID,omitempty"`
	TargetPortID string `json:"targetPortID,omitempty"`
}

// numericType is a node type, written as a string ("3") or a number (3).
type numericType string

// flexString is a text written as a JSON string or number (ids, versions).
type flexString = numericType

// UnmarshalJSON reads a type written either way.
func (t *numericType) UnmarshalJSON(b []byte) error {
	var s string
	if err := json.Unmarshal(b, &s); err == nil {
		*t = numericType(s)
		return nil
	}
	var n json.Number
	if err := json.Unmarshal(b, &n); err != nil {
		return err
	}
	*t = numericType(n.String())
	return nil
}

// cozeParam is a named value: an input parameter, a setting, a branch side.
type cozeParam struct {
	Name      string        `json:"name,omitempty"`
	Input     *blockInput   `json:"input,omitempty"`
	Left      *blockInput   `json:"left,omitempty"`
	Right     *blockInput   `json:"right,omitempty"`
	Variables []*blockInput `json:"variables,omitempty"`
}

// blockInput is a typed value: a literal or a reference.
type blockInput struct {
	Type       string          `json:"type,omitempty"`
	AssistType int64           `json:"assistType,omitempty"`
	Schema     json.RawMessage `json:"schema,omitempty"`
	Value      *blockValue     `json:"value,omitempty"`
}

// blockValue is the value of a blockInput: type literal (content is the
// value, often as text) or ref (content is a blockRef).
type blockValue struct {
	Type    string          `json:"type"`
	Content json.RawMessage `json:"content,omitempty"`
}

// blockRef is a reference: to an output of a node (source block-output,
// blockID and a dotted name) or to a variable (source global_variable_*,
// path).
type blockRef struct {
	BlockID string   `json:"blockID"`
	Name    string   `json:"name,omitempty"`
	Path    []string `json:"path,omitempty"`
	Source  string   `json:"source"`
}

// cozeVariable is a declared output or parameter.
type cozeVariable struct {
	Name        string          `json:"name"`
	Type        string          `json:"type"`
	AssistType  int64           `json:"assistType,omitempty"`
	Schema      json.RawMessage `json:"schema,omitempty"`
	Required    bool            `json:"required,omitempty"`
	Description string          `json:"description,omitempty"`
	// DefaultValue is a start node parameter's default, often as text.
	DefaultValue any `json:"defaultValue,omitempty"`
}

// title returns the node's title, if any.
func (n *cozeNode) title() string {
	if n.Data.NodeMeta == nil {
		return ""
	}
	return n.Data.NodeMeta.Title
}

// literalText returns the content of a literal as text: a JSON string
// unquoted, any other JSON value as written. ok is false for no literal.
func (b *blockInput) literalText() (string, bool) {
	if b == nil || b.Value == nil || b.Value.Type != "literal" || len(b.Value.Content) == 0 {
		return "", false
	}
	var s string
	if err := json.Unmarshal(b.Value.Content, &s); err == nil {
		return s, true
	}
	return string(bytes.TrimSpace(b.Value.Content)), true
}

// literalInt returns a literal as an integer.
func (b *blockInput) literalInt() (int64, bool) {
	s, ok := b.literalText()
	if !ok {
		return 0, false
	}
	n, err := strconv.ParseFloat(s, 64)
	if err != nil {
		return 0, false
	}
	return int64(n), true
}

// findParam returns the param named name.
func findParam(params []*cozeParam, name string) *cozeParam {
	for _, p := range params {
		if p != nil && p.Name == name {
			return p
		}
	}
	return nil
}
