package workflow

import (
	"context"
	"encoding/json"
	"reflect"
	"slices"
	"strings"

	"github.com/eino-contrib/jsonschema"
)

// Catalog is the set of node types a workflow may use. It is a value built
// by NewCatalog, not a registry filled at init: an engine holds one, and a
// test may build its own.
type Catalog struct {
	kinds map[string]kind
	order []string
	infos []NodeTypeInfo // described once: reflecting the config schemas is not free
}

// kind is one node type: how to describe it, check a node of it and run
// it.
type kind interface {
	describe() NodeTypeInfo
	// check decodes and checks the node's config, reporting problems to c,
	// and returns what the engine needs to know about the node (nil when
	// the config is unusable).
	check(c *checker, n *Node) *nodeSpec
}

// runner runs one node: in holds its resolved inputs, by name, and the
// result is its outputs (checked against the declared ones afterwards).
type runner interface {
	run(ctx context.Context, x *nodeCtx, in map[string]any) (map[string]any, error)
}

// runFunc adapts a function to runner.
type runFunc func(ctx context.Context, x *nodeCtx, in map[string]any) (map[string]any, error)

func (f runFunc) run(ctx context.Context, x *nodeCtx, in map[string]any) (map[string]any, error) {
	return f(ctx, x, in)
}

// NodeTypeInfo describes a node type for builders and their UIs
// (GET /api/workflow-nodes).
type NodeTypeInfo struct {
	Type        string `json:"type"`
	Title       string `json:"title"`
	Category    string `json:"category"`
	Description string `json:"description"`
	// ConfigSchema is the JSON Schema of the node's config.
	ConfigSchema map[string]any `json:"config_schema"`
	// Inputs are the inputs the type reads by name; others may be added
	// freely where the type says so.
	Inputs []InputInfo `json:"inputs"`
	// Outputs are the outputs the type always has; DeclaredOutputs says
	// the node declares (more of) its own.
	Outputs         []Param `json:"outputs"`
	DeclaredOutputs bool    `json:"declared_outputs"`
	// Ports are the branches the node can take; "from config" types
	// (condition, intent) list theirs in the config.
	Ports     []string `json:"ports,omitempty"`
	Composite bool     `json:"composite,omitempty"`
}

// InputInfo is one well-known input of a node type.
type InputInfo struct {
	Name        string `json:"name"`
	Type        Type   `json:"type,omitempty"`
	Required    bool   `json:"required,omitempty"`
	Description string `json:"description"`
}

// Node categories, for grouping in a UI.
const (
	categoryBasic     = "basic"
	categoryAI        = "ai"
	categoryLogic     = "logic"
	categoryData      = "data"
	categoryIO        = "io"
	categoryTable     = "table"
	categoryControl   = "control"
	categoryKnowledge = "knowledge"
)

// NewCatalog returns the catalog of every built-in node type.
func NewCatalog() *Catalog {
	c := &Catalog{kinds: map[string]kind{}}
	for _, k := range []kind{
		startKind{}, endKind{}, llmKind{}, intentKind{}, pluginKind{}, codeKind{},
		conditionKind{}, loopKind{}, batchKind{}, breakKind{stop: true}, breakKind{}, setVariableKind{},
		aggregateKind{}, assignKind{}, textKind{}, jsonParseKind{}, jsonStringifyKind{},
		httpKind{}, subWorkflowKind{}, messageKind{}, questionKind{}, formKind{},
		tableKind{op: TableSelect}, tableKind{op: TableInsert}, tableKind{op: TableUpdate},
		tableKind{op: TableDelete}, tableKind{op: TableSQL}, conversationKind{},
		retrieveKind{}, writeKind{}, deleteKind{},
	} {
		info := k.describe()
		c.kinds[info.Type] = k
		c.order = append(c.order, info.Type)
		c.infos = append(c.infos, info)
	}
	return c
}

// Types returns the descriptions of every node type, in catalog order.
func (c *Catalog) Types() []NodeTypeInfo { return slices.Clone(c.infos) }

// Has reports whether the catalog has the node type t.
func (c *Catalog) Has(t string) bool {
	_, ok := c.kinds[t]
	return ok
}

func (c *Catalog) names() string { return strings.Join(slices.Sorted(slices.Values(c.order)), ", ") }

// configSchema reflects a config struct into a JSON Schema object.
func configSchema(v any) map[string]any {
	r := jsonschema.Reflector{DoNotReference: true, ExpandedStruct: true, RequiredFromJSONSchemaTags: true,
		Mapper: func(t reflect.Type) *jsonschema.Schema {
			if t == reflect.TypeOf(json.RawMessage(nil)) {
				return &jsonschema.Schema{}
			}
			return nil
		}}
	s := r.Reflect(v)
	s.Version, s.ID = "", ""
	b, err := json.Marshal(s)
	if err != nil {
		return map[string]any{"type": "object"}
	}
	var m map[string]any
	if err := json.Unmarshal(b, &m); err != nil {
		return map[string]any{"type": "object"}
	}
	return m
}
