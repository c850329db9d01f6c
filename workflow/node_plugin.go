package workflow

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
)

// pluginKind calls one tool of a plugin.
type pluginKind struct{}

type pluginConfig struct {
	PluginID idValue `json:"plugin_id" jsonschema:"required"`
	Tool     string  `json:"tool" jsonschema:"required"`
}

func (pluginKind) describe() NodeTypeInfo {
	return NodeTypeInfo{Type: "plugin", Title: "Plugin tool", Category: categoryIO,
		Description: "Calls a plugin tool with the node's inputs as its arguments. Outputs the result text (output); " +
			"declared outputs are filled from the fields of a JSON object result instead.",
		ConfigSchema: configSchema(&pluginConfig{}),
		Outputs:      []Param{P("output", TypeString)}, DeclaredOutputs: true}
}

func (pluginKind) check(c *checker, n *Node) *nodeSpec {
	var cfg pluginConfig
	if !c.decodeConfig(n, &cfg) {
		return nil
	}
	if cfg.PluginID <= 0 {
		c.fail(nodeField(n, "config.plugin_id"), "is required")
	}
	if cfg.Tool == "" {
		c.fail(nodeField(n, "config.tool"), "is required")
	}
	declared := len(n.Outputs) > 0
	return &nodeSpec{outputs: c.declaredOr(n, []Param{P("output", TypeString)}), blocking: true,
		runner: runFunc(func(ctx context.Context, x *nodeCtx, in map[string]any) (map[string]any, error) {
			inv := x.rc.eng.ports.Tools
			if inv == nil {
				return nil, permanent(errors.New("plugins are not available in this process"))
			}
			args, err := json.Marshal(in)
			if err != nil {
				return nil, permanent(err)
			}
			ref := ToolRef{WorkspaceID: x.rc.in.Scope.WorkspaceID, PluginID: int64(cfg.PluginID), Tool: cfg.Tool}
			res, err := inv.InvokeTool(ctx, ref, string(args))
			if err != nil {
				return nil, fmt.Errorf("tool %s of plugin %d: %w", cfg.Tool, cfg.PluginID, err)
			}
			if !declared {
				return map[string]any{"output": res}, nil
			}
			v, err := decodeValue([]byte(res))
			m, ok := v.(map[string]any)
			if err != nil || !ok {
				return nil, fmt.Errorf("tool %s returned %s, not the JSON object the declared outputs need", cfg.Tool, preview(res, 60))
			}
			return m, nil
		})}
}
