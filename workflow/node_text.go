package workflow

import (
	"context"
	"fmt"
	"strings"
)

// textKind concatenates, splits or renders text.
type textKind struct{}

type textConfig struct {
	Op         string   `json:"op" jsonschema:"required,enum=template,enum=concat,enum=split,description=template: render a template over the inputs; concat: join the items of input items (an array) with separator; split: split input text at any of separators"`
	Template   string   `json:"template,omitempty" jsonschema:"description=op template: the text; {{input}} placeholders read the node's inputs"`
	ArrayJoin  *string  `json:"array_join,omitempty" jsonschema:"description=op template: an array placeholder renders its items joined with this text (objects as JSON; null as nothing) instead of as JSON"`
	Separator  string   `json:"separator,omitempty" jsonschema:"description=op concat: put between items (default none)"`
	Separators []string `json:"separators,omitempty" jsonschema:"description=op split: the separators (default a newline)"`
}

func (textKind) describe() NodeTypeInfo {
	return NodeTypeInfo{Type: "text", Title: "Text", Category: categoryData,
		Description:  "Text processing: render a template (output: string), concatenate an array (output: string) or split a text (output: array of strings).",
		ConfigSchema: configSchema(&textConfig{}),
		Inputs: []InputInfo{{Name: "items", Type: TypeArray, Description: "op concat: the values joined"},
			{Name: "text", Type: TypeString, Description: "op split: the text split"}},
		Outputs: []Param{P("output", TypeString)}}
}

func (textKind) check(c *checker, n *Node) *nodeSpec {
	var cfg textConfig
	if !c.decodeConfig(n, &cfg) {
		return nil
	}
	c.noOutputs(n)
	switch cfg.Op {
	case "template":
		t, err := checkTemplate(cfg.Template, n.Inputs)
		if err != nil {
			c.fail(nodeField(n, "config.template"), "%v", err)
			return nil
		}
		return &nodeSpec{outputs: []Param{P("output", TypeString)},
			runner: runFunc(func(_ context.Context, _ *nodeCtx, in map[string]any) (map[string]any, error) {
				return map[string]any{"output": t.renderWith(in, arrayJoiner(cfg.ArrayJoin))}, nil
			})}
	case "concat":
		return &nodeSpec{outputs: []Param{P("output", TypeString)}, required: []string{"items"},
			want: map[string]Schema{"items": S(TypeArray)}, runner: runFunc(concatRunner(cfg.Separator))}
	case "split":
		seps := cfg.Separators
		if len(seps) == 0 {
			seps = []string{"\n"}
		}
		for _, s := range seps {
			if s == "" {
				c.fail(nodeField(n, "config.separators"), "must not hold an empty separator")
				return nil
			}
		}
		return &nodeSpec{outputs: []Param{{Name: "output", Schema: ArrayOf(S(TypeString))}}, required: []string{"text"},
			want: map[string]Schema{"text": S(TypeString)}, runner: runFunc(splitRunner(seps))}
	}
	c.fail(nodeField(n, "config.op"), "must be template, concat or split; got %q", cfg.Op)
	return nil
}

// arrayJoiner renders values as text does, arrays joined with *sep when
// sep is set.
func arrayJoiner(sep *string) func(any) string {
	if sep == nil {
		return text
	}
	return func(v any) string {
		items, ok := v.([]any)
		if !ok {
			return text(v)
		}
		parts := make([]string, len(items))
		for i, it := range items {
			parts[i] = text(it)
		}
		return strings.Join(parts, *sep)
	}
}

func concatRunner(sep string) func(context.Context, *nodeCtx, map[string]any) (map[string]any, error) {
	return func(_ context.Context, _ *nodeCtx, in map[string]any) (map[string]any, error) {
		items, _ := in["items"].([]any)
		parts := make([]string, len(items))
		for i, it := range items {
			parts[i] = text(it)
		}
		return map[string]any{"output": strings.Join(parts, sep)}, nil
	}
}

func splitRunner(seps []string) func(context.Context, *nodeCtx, map[string]any) (map[string]any, error) {
	return func(_ context.Context, _ *nodeCtx, in map[string]any) (map[string]any, error) {
		s, ok := in["text"].(string)
		if !ok && in["text"] != nil {
			return nil, fmt.Errorf("text: want string, got %s", describeType(in["text"]))
		}
		parts := []string{s}
		for _, sep := range seps {
			var next []string
			for _, p := range parts {
				next = append(next, strings.Split(p, sep)...)
			}
			parts = next
		}
		out := make([]any, 0, len(parts))
		for _, p := range parts {
			if p != "" {
				out = append(out, p)
			}
		}
		return map[string]any{"output": out}, nil
	}
}
