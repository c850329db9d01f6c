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

// nodeTools are the tools of one run of an llm node, by the names the
// model sees.
type nodeTools struct {
	infos   []*schema.ToolInfo
	plugins map[string]ToolRef
	flows   map[string]flowTool
}

// tools describes the node's plugin and workflow tools.
func (r *llmRunner) tools(ctx context.Context, x *nodeCtx) (*nodeTools, error) {
	nt := &nodeTools{plugins: map[string]ToolRef{}, flows: map[string]flowTool{}}
	taken := map[string]bool{}
	inv := x.rc.eng.ports.Tools
	if len(r.cfg.Tools) > 0 && inv == nil {
		return nil, permanent(errors.New("plugins are not available in this process: the llm node's tools cannot run"))
	}
	for _, t := range r.cfg.Tools {
		ref := ToolRef{WorkspaceID: x.rc.in.Scope.WorkspaceID, PluginID: int64(t.PluginID), Tool: t.Tool}
		info, err := inv.DescribeTool(ctx, ref)
		if err != nil {
			return nil, permanent(fmt.Errorf("tool %s of plugin %d: %w", t.Tool, t.PluginID, err))
		}
		info.Name = UniqueToolName(taken, info.Name)
		nt.plugins[info.Name], nt.infos = ref, append(nt.infos, info)
	}
	for _, ft := range r.flows {
		info, err := flowInfo(ctx, x, ft)
		if err != nil {
			return nil, err
		}
		info.Name = UniqueToolName(taken, info.Name)
		nt.flows[info.Name], nt.infos = ft, append(nt.infos, info)
	}
	return nt, nil
}

// withTools lets the model call its tools until it answers in text or a
// workflow tool returns directly. A tool's error is given to the model as
// its result, so it can recover. With a pipe (a streamed run showing the
// node's text) the model's text streams into it as it comes, and a tool
// that returns directly writes its text there.
func (r *llmRunner) withTools(ctx context.Context, x *nodeCtx, cm model.ToolCallingChatModel, msgs []*schema.Message,
	opts []model.Option, p *textPipe) (*schema.Message, error) {
	nt, err := r.tools(ctx, x)
	if err != nil {
		return nil, err
	}
	bound, err := cm.WithTools(nt.infos)
	if err != nil {
		return nil, permanent(fmt.Errorf("bind tools: %w", err))
	}
	key := x.f.nodeKey(x.pn)
	st, resumed := restoreToolState(x, key)
	for round := st.Round; round <= r.rounds; round++ {
		var msg *schema.Message
		var results []*schema.Message
		if resumed {
			msgs, msg, results, resumed = st.Messages[:len(st.Messages)-1], st.Messages[len(st.Messages)-1], st.Results, false
		} else if msg, err = callModel(ctx, x, bound, msgs, opts, p); err != nil {
			return nil, err
		} else if len(msg.ToolCalls) == 0 {
			return msg, nil
		}
		msgs = append(msgs, msg)
		for i := len(results); i < len(msg.ToolCalls); i++ {
			call := msg.ToolCalls[i]
			res, direct, err := nt.call(ctx, x, key+"/tool"+strconv.Itoa(round)+"."+strconv.Itoa(i), call)
			if errors.Is(err, errInterrupted) {
				saveToolState(x, key, toolState{Round: round, Messages: msgs, Results: results})
				return nil, errInterrupted
			}
			if err != nil {
				return nil, err
			}
			if direct {
				if p != nil {
					p.write(res)
				}
				return schema.AssistantMessage(res, nil), nil
			}
			results = append(results, schema.ToolMessage(res, call.ID, schema.WithToolName(call.Function.Name)))
		}
		msgs = append(msgs, results...)
	}
	return nil, fmt.Errorf("the model still called tools after %d rounds; raise config.max_tool_rounds", r.rounds)
}

// callModel calls the model once, streaming its text into p when there is one.
func callModel(ctx context.Context, x *nodeCtx, cm model.BaseChatModel, msgs []*schema.Message, opts []model.Option, p *textPipe) (*schema.Message, error) {
	if p == nil {
		return generate(ctx, x, cm, msgs, opts)
	}
	return streamReply(ctx, x, cm, msgs, opts, p)
}

// call runs one tool call: its result, whether it returns directly, or
// errInterrupted or the run's end.
func (nt *nodeTools) call(ctx context.Context, x *nodeCtx, key string, call schema.ToolCall) (string, bool, error) {
	name, args := call.Function.Name, call.Function.Arguments
	if ref, ok := nt.plugins[name]; ok {
		res, err := x.rc.eng.ports.Tools.InvokeTool(ctx, ref, args)
		if err != nil {
			return "error: " + err.Error(), false, nil
		}
		return res, false, nil
	}
	if ft, ok := nt.flows[name]; ok {
		return callFlow(ctx, x, ft, key, args)
	}
	return "error: no tool named " + name, false, nil
}
