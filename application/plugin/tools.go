package plugin

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/cloudwego/eino/components/tool"
	"github.com/cloudwego/eino/schema"
	"github.com/eino-contrib/jsonschema"

	"github.com/pergola-ai/pergola/domain/bot"
)

// BotTools returns one tool per plugin tool a bot configuration binds,
// described by the spec of the bound version (the plugin's draft when
// none is pinned, in a builder's debug chat). It is called once per bot
// version; each call loads the plugin again, so an administrator's switch
// or a rotated secret applies at once. A plugin deleted since the binding,
// or one of another workspace, is left out (its tools would only fail).
func (s *Service) BotTools(ctx context.Context, b *bot.Bot, cfg *bot.Config) ([]tool.BaseTool, error) {
	var out []tool.BaseTool
	for _, bound := range cfg.Plugins {
		ref := toolRef{pluginID: bound.PluginID, tool: bound.Tool, workspaceID: b.WorkspaceID}
		var err error
		if ref.version, err = parseLabel(bound.Version); err != nil {
			return nil, fmt.Errorf("bot %d: plugin %d: %w", b.ID, bound.PluginID, err)
		}
		pl, spec, err := s.load(ctx, ref.pluginID, ref.version)
		if err == nil && !pl.VisibleTo(b.WorkspaceID) {
			err = fmt.Errorf("plugin %d belongs to another workspace", pl.ID)
		}
		if err != nil {
			s.d.Log.WarnContext(ctx, "a bound plugin tool is left out", "bot", b.ID, "plugin", bound.PluginID, "tool", bound.Tool, "err", err)
			continue
		}
		t, ok := spec.Tool(bound.Tool)
		if !ok {
			s.d.Log.WarnContext(ctx, "a bound plugin tool is left out: no such tool", "bot", b.ID, "plugin", bound.PluginID, "tool", bound.Tool)
			continue
		}
		info, err := toolInfo(t.Name, t.Description, t.Schema)
		if err != nil {
			return nil, fmt.Errorf("bot %d: plugin %d tool %s: %w", b.ID, bound.PluginID, t.Name, err)
		}
		out = append(out, &boundTool{s: s, ref: ref, info: info})
	}
	return out, nil
}

func parseLabel(label string) (int64, error) {
	var v int64
	if label == "" {
		return 0, nil
	}
	if _, err := fmt.Sscan(label, &v); err != nil || v <= 0 {
		return 0, fmt.Errorf("version %q is not a version number", label)
	}
	return v, nil
}

// toolInfo describes a tool to the model with its JSON Schema.
func toolInfo(name, desc string, params map[string]any) (*schema.ToolInfo, error) {
	b, err := json.Marshal(params)
	if err != nil {
		return nil, err
	}
	var js jsonschema.Schema
	if err := json.Unmarshal(b, &js); err != nil {
		return nil, fmt.Errorf("parameters: %w", err)
	}
	return &schema.ToolInfo{Name: name, Desc: desc, ParamsOneOf: schema.NewParamsOneOfByJSONSchema(&js)}, nil
}

// boundTool is one plugin tool in a bot's agent.
type boundTool struct {
	s    *Service
	ref  toolRef
	info *schema.ToolInfo
}

func (t *boundTool) Info(context.Context) (*schema.ToolInfo, error) { return t.info, nil }

// ToolOrigin is the tool's plugin id, for metrics.
func (t *boundTool) ToolOrigin() string { return fmt.Sprint(t.ref.pluginID) }

// InvokableRun calls the tool. Its error is the text the model reads; the
// runtime turns it into the tool's result.
func (t *boundTool) InvokableRun(ctx context.Context, args string, _ ...tool.Option) (string, error) {
	return t.s.invoke(ctx, t.ref, args)
}
