package workflow

import (
	"bytes"
	"encoding/json"
	"fmt"

	"gopkg.in/yaml.v3"

	"github.com/pergola-ai/pergola/domain/errs"
)

// Definition is a workflow as builders write it: nodes joined by edges.
// Edges carry control (what runs after what, and which branch); inputs
// carry data (references to the outputs of nodes that ran before). The
// body of a loop or batch node is a Definition too.
type Definition struct {
	Nodes []Node `json:"nodes"`
	Edges []Edge `json:"edges"`
	// Compat "coze" runs the workflow with Coze Studio's conversions of
	// parameters, typed inputs and outputs (see coerce.go); imports set it.
	Compat string `json:"compat,omitempty"`
}

// Node is one step of a workflow.
type Node struct {
	ID    string `json:"id"`
	Type  string `json:"type"`
	Title string `json:"title,omitempty"`
	// Config holds the settings of the node's type, e.g. the model and
	// prompts of an llm node. Templates in it name the node's inputs:
	// {{question}} or {{user.name}}.
	Config json.RawMessage `json:"config,omitempty"`
	// Inputs are the values the node reads, by name.
	Inputs map[string]Input `json:"inputs,omitempty"`
	// Outputs declare what the node produces, typed. Most types derive
	// their outputs; start, code, llm (JSON), plugin and sub-workflow nodes
	// declare theirs.
	Outputs  []Param   `json:"outputs,omitempty"`
	Settings *Settings `json:"settings,omitempty"`
	// Body is the inner workflow of a loop or batch node. Its edges start
	// at the node's own id (the start of an iteration); nodes without a
	// successor end the iteration.
	Body *Definition `json:"body,omitempty"`
}

// Label names the node in messages: its title and id, or the id alone.
func (n *Node) Label() string {
	if n.Title == "" || n.Title == n.ID {
		return n.ID
	}
	return fmt.Sprintf("%s (%s)", n.ID, n.Title)
}

// Edge makes To run after From. FromPort picks a branch of a node that
// branches (condition, intent, or any node whose errors follow the
// "error" port); it is empty for plain edges.
type Edge struct {
	From     string `json:"from"`
	FromPort string `json:"from_port,omitempty"`
	To       string `json:"to"`
}

// Ref points at an output of a node that runs before: Node is its id and
// Path a dotted path into its outputs, e.g. "items.0.name". Inside a loop
// or batch body the loop's own id reads "item", "index" and the loop
// variables.
type Ref struct {
	Node string `json:"node"`
	Path string `json:"path,omitempty"`
}

// String renders the reference as node.path.
func (r Ref) String() string {
	if r.Path == "" {
		return r.Node
	}
	return r.Node + "." + r.Path
}

// Settings are the error handling of one node.
type Settings struct {
	// TimeoutMS bounds one attempt; 0 takes the engine's node timeout.
	TimeoutMS int `json:"timeout_ms,omitempty"`
	// Retries is how many times a failed attempt is tried again (0-5).
	Retries int `json:"retries,omitempty"`
	// RetryBackoffMS is the pause before the first retry, doubled after
	// each (default 200).
	RetryBackoffMS int `json:"retry_backoff_ms,omitempty"`
	// OnError is "fail" (the default: the run fails), "default" (the node
	// outputs DefaultOutput and the run goes on) or "branch" (the run
	// follows the node's "error" port).
	OnError string `json:"on_error,omitempty"`
	// DefaultOutput is the output used with OnError "default".
	DefaultOutput map[string]any `json:"default_output,omitempty"`
}

// The values of Settings.OnError.
const (
	OnErrorFail    = "fail"
	OnErrorDefault = "default"
	OnErrorBranch  = "branch"
)

// ErrorPort is the port a node with OnError "branch" follows when it fails.
const ErrorPort = "error"

// Parse reads a definition written in JSON or YAML. Unknown fields are
// errors, so a misspelt key is reported rather than ignored. It returns an
// error matching errs.ErrInvalid that says where the text is wrong.
func Parse(data []byte) (*Definition, error) {
	data = bytes.TrimSpace(data)
	if len(data) == 0 {
		return nil, errs.Invalid("definition", "is empty")
	}
	if data[0] != '{' {
		converted, err := yamlToJSON(data)
		if err != nil {
			return nil, err
		}
		data = converted
	}
	var d Definition
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	dec.UseNumber()
	if err := dec.Decode(&d); err != nil {
		return nil, errs.Invalid("definition", "%s", describeJSONError(err))
	}
	if dec.More() {
		return nil, errs.Invalid("definition", "has text after the JSON object")
	}
	return &d, nil
}

// yamlToJSON converts a YAML document to JSON, so both are read by the same
// strict decoder.
func yamlToJSON(data []byte) ([]byte, error) {
	var v any
	if err := yaml.Unmarshal(data, &v); err != nil {
		return nil, errs.Invalid("definition", "is neither JSON nor valid YAML: %v", err)
	}
	b, err := json.Marshal(jsonable(v))
	if err != nil {
		return nil, errs.Invalid("definition", "YAML cannot be read as JSON: %v", err)
	}
	return b, nil
}

// jsonable turns the maps yaml.v3 may produce (map[any]any for non-string
// keys) into JSON-encodable values.
func jsonable(v any) any {
	switch x := v.(type) {
	case map[string]any:
		for k, e := range x {
			x[k] = jsonable(e)
		}
		return x
	case map[any]any:
		out := make(map[string]any, len(x))
		for k, e := range x {
			out[fmt.Sprint(k)] = jsonable(e)
		}
		return out
	case []any:
		for i, e := range x {
			x[i] = jsonable(e)
		}
		return x
	}
	return v
}

func describeJSONError(err error) string {
	var typeErr *json.UnmarshalTypeError
	var syntaxErr *json.SyntaxError
	switch {
	case asError(err, &typeErr):
		return fmt.Sprintf("%s must not be %s", orBody(typeErr.Field), typeErr.Value)
	case asError(err, &syntaxErr):
		return fmt.Sprintf("is not valid JSON at byte %d: %v", syntaxErr.Offset, syntaxErr)
	}
	return err.Error()
}

func orBody(field string) string {
	if field == "" {
		return "the value"
	}
	return field
}

// Marshal returns the definition as compact JSON, the form it is stored in.
func (d *Definition) Marshal() ([]byte, error) { return json.Marshal(d) }

// Walk calls fn for every node, those of bodies included, with the node
// enclosing it (nil at the top level).
func (d *Definition) Walk(fn func(n, parent *Node)) {
	var walk func(def *Definition, parent *Node)
	walk = func(def *Definition, parent *Node) {
		for i := range def.Nodes {
			n := &def.Nodes[i]
			fn(n, parent)
			if n.Body != nil {
				walk(n.Body, n)
			}
		}
	}
	walk(d, nil)
}
