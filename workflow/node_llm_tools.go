package workflow

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"strings"

	"github.com/cloudwego/eino/components/model"
	"github.com/cloudwego/eino/schema"
	"github.com/eino-contrib/jsonschema"
)

// idValue is an id written as a JSON number or string.
type idValue int64

// UnmarshalJSON reads 12 or "12".
func (v *idValue) UnmarshalJSON(b []byte) error {
	s := strings.Trim(string(b), `"`)
	n, err := strconv.ParseInt(s, 10, 64)
	if err != nil || n < 0 {
		return fmt.Errorf("must be a numeric id, got %s", b)
	}
	*v = idValue(n)
	return nil
}

// JSONSchema describes an id for the config schemas.
func (idValue) JSONSchema() *jsonschema.Schema {
	return &jsonschema.Schema{OneOf: []*jsonschema.Schema{{Type: "string", Pattern: "^[0-9]+$"}, {Type: "integer"}}}
}

// withTools lets the model call plugin tools until it answers in text. A
// tool's error is given to the model as its result, so it can recover.
func (r *llmRunner) withTools(ctx context.Context, x *nodeCtx, cm model.ToolCallingChatModel, msgs []*schema.Message, opts []model.Option) (*schema.Message, error) {
	inv := x.rc.eng.ports.Tools
	if inv == nil {
		return nil, permanent(errors.New("plugins are not available in this process: the llm node's tools cannot run"))
	}
	refs := make(map[string]ToolRef, len(r.cfg.Tools))
	infos := make([]*schema.ToolInfo, 0, len(r.cfg.Tools))
	for _, t := range r.cfg.Tools {
		ref := ToolRef{WorkspaceID: x.rc.in.Scope.WorkspaceID, PluginID: int64(t.PluginID), Tool: t.Tool}
		info, err := inv.DescribeTool(ctx, ref)
		if err != nil {
			return nil, permanent(fmt.Errorf("tool %s of plugin %d: %w", t.Tool, t.PluginID, err))
		}
		refs[info.Name], infos = ref, append(infos, info)
	}
	bound, err := cm.WithTools(infos)
	if err != nil {
		return nil, permanent(fmt.Errorf("bind tools: %w", err))
	}
	for round := 0; round <= r.rounds; round++ {
		msg, err := generate(ctx, x, bound, msgs, opts)
		if err != nil {
			return nil, err
		}
		if len(msg.ToolCalls) == 0 {
			return msg, nil
		}
		msgs = append(msgs, msg)
		for _, call := range msg.ToolCalls {
			msgs = append(msgs, callTool(ctx, inv, refs, call))
		}
	}
	return nil, fmt.Errorf("the model still called tools after %d rounds; raise config.max_tool_rounds", r.rounds)
}

func callTool(ctx context.Context, inv ToolInvoker, refs map[string]ToolRef, call schema.ToolCall) *schema.Message {
	ref, ok := refs[call.Function.Name]
	var out string
	if !ok {
		out = "error: no tool named " + call.Function.Name
	} else if res, err := inv.InvokeTool(ctx, ref, call.Function.Arguments); err != nil {
		out = "error: " + err.Error()
	} else {
		out = res
	}
	return schema.ToolMessage(out, call.ID, schema.WithToolName(call.Function.Name))
}
