package workflow

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
)

// jsonParseKind parses JSON text.
type jsonParseKind struct{}

type jsonParseConfig struct {
	Whole bool `json:"whole,omitempty" jsonschema:"description=the parsed value is the one declared output (typed)\\, rather than an object whose fields fill the declared outputs"`
}

func (jsonParseKind) describe() NodeTypeInfo {
	return NodeTypeInfo{Type: "json_parse", Title: "JSON parse", Category: categoryData,
		Description: "Parses input text as JSON. Without declared outputs the value is output; with them, the text must " +
			"be an object whose fields fill the declared outputs (typed).",
		ConfigSchema:    configSchema(&jsonParseConfig{}),
		Inputs:          []InputInfo{{Name: "text", Type: TypeString, Required: true, Description: "the JSON text"}},
		Outputs:         []Param{{Name: "output"}},
		DeclaredOutputs: true}
}

func (jsonParseKind) check(c *checker, n *Node) *nodeSpec {
	var cfg jsonParseConfig
	c.decodeConfig(n, &cfg)
	declared := len(n.Outputs) > 0
	if cfg.Whole && len(n.Outputs) != 1 {
		c.fail(nodeField(n, "outputs"), "whole needs exactly one declared output: the parsed value")
		return nil
	}
	return &nodeSpec{outputs: c.declaredOr(n, []Param{{Name: "output"}}), required: []string{"text"},
		want: map[string]Schema{"text": S(TypeString)},
		runner: runFunc(func(_ context.Context, _ *nodeCtx, in map[string]any) (map[string]any, error) {
			s, _ := in["text"].(string)
			v, err := decodeValue([]byte(s))
			if err != nil {
				return nil, permanent(fmt.Errorf("text is not JSON: %v (text starts %s)", err, preview(s, 60)))
			}
			if !declared {
				return map[string]any{"output": v}, nil
			}
			if cfg.Whole {
				return map[string]any{n.Outputs[0].Name: v}, nil
			}
			m, ok := v.(map[string]any)
			if !ok {
				return nil, permanent(fmt.Errorf("text is JSON %s, but the declared outputs need an object", describeType(v)))
			}
			return m, nil
		})}
}

// jsonStringifyKind writes a value as JSON text.
type jsonStringifyKind struct{}

type jsonStringifyConfig struct {
	Indent bool `json:"indent,omitempty" jsonschema:"description=indent the JSON with two spaces"`
}

func (jsonStringifyKind) describe() NodeTypeInfo {
	return NodeTypeInfo{Type: "json_stringify", Title: "JSON stringify", Category: categoryData,
		Description:  "Writes input value as JSON text (output).",
		ConfigSchema: configSchema(&jsonStringifyConfig{}),
		Inputs:       []InputInfo{{Name: "value", Required: true, Description: "the value written"}},
		Outputs:      []Param{P("output", TypeString)}}
}

func (jsonStringifyKind) check(c *checker, n *Node) *nodeSpec {
	var cfg jsonStringifyConfig
	if !c.decodeConfig(n, &cfg) {
		return nil
	}
	c.noOutputs(n)
	return &nodeSpec{outputs: []Param{P("output", TypeString)}, required: []string{"value"},
		runner: runFunc(func(_ context.Context, _ *nodeCtx, in map[string]any) (map[string]any, error) {
			var b strings.Builder
			enc := json.NewEncoder(&b)
			enc.SetEscapeHTML(false)
			if cfg.Indent {
				enc.SetIndent("", "  ")
			}
			if err := enc.Encode(in["value"]); err != nil {
				return nil, permanent(err)
			}
			return map[string]any{"output": strings.TrimRight(b.String(), "\n")}, nil
		})}
}
