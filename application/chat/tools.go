package chat

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/cloudwego/eino/callbacks"
	"github.com/cloudwego/eino/components/tool"
	"github.com/cloudwego/eino/compose"
	"github.com/cloudwego/eino/flow/agent/react"
	"github.com/cloudwego/eino/schema"
	"github.com/eino-contrib/jsonschema"

	"github.com/pergola-ai/pergola/domain/bot"
	"github.com/pergola-ai/pergola/domain/variable"
)

// toolMiddleware wraps every tool call of every bot: it waits until the
// turn's question is stored (the tool may read the conversation), reports
// the call and its result to the run (messages, events, hooks), bounds it
// with a timeout, and turns an error into a result the model reads, so a
// failing tool never crashes the run.
func (s *Service) toolMiddleware() compose.ToolMiddleware {
	return compose.ToolMiddleware{Invokable: func(next compose.InvokableToolEndpoint) compose.InvokableToolEndpoint {
		return func(ctx context.Context, in *compose.ToolInput) (*compose.ToolOutput, error) {
			rs := runFrom(ctx)
			if err := rs.t.stored.wait(ctx); err != nil {
				return nil, err // the turn is not stored: Start failed and cancels the run
			}
			start := time.Now()
			rs.toolCall(ctx, in.Name, in.CallID, in.Arguments)
			tctx, cancel := context.WithTimeout(ctx, s.d.ToolTimeout)
			// A tool's own eino components (a workflow's LLM node) must not
			// report to the chat's callbacks, or their text would stream as
			// the bot's answer.
			out, err := next(callbacks.InitCallbacks(tctx, nil), in)
			cancel()
			result := ""
			switch {
			case err != nil && errors.Is(tctx.Err(), context.DeadlineExceeded) && ctx.Err() == nil:
				result = fmt.Sprintf("error: the tool %s did not answer within %s", in.Name, s.d.ToolTimeout)
			case err != nil:
				result = "error: " + err.Error()
			default:
				result = out.Result
			}
			rs.toolResult(ctx, in.Name, in.CallID, in.Arguments, result, time.Since(start), err)
			return &compose.ToolOutput{Result: result}, nil
		}
	}}
}

// keywordMemoryTool is setKeywordMemory: it writes the end user's values of
// the bot's variables, refusing undefined keywords.
type keywordMemoryTool struct {
	defs []variable.Definition
}

func (keywordMemoryTool) ToolOrigin() string { return "variable" }

func (t keywordMemoryTool) Info(context.Context) (*schema.ToolInfo, error) {
	var keys []string
	for _, d := range t.defs {
		desc := d.Keyword
		if d.Description != "" {
			desc += " (" + d.Description + ")"
		}
		keys = append(keys, desc)
	}
	return &schema.ToolInfo{
		Name: bot.KeywordMemoryTool,
		Desc: "Remember facts about the user in the bot's variables. Only these keywords can be set: " + strings.Join(keys, ", ") + ".",
		ParamsOneOf: schema.NewParamsOneOfByParams(map[string]*schema.ParameterInfo{
			"data": {Type: schema.Array, Required: true, Desc: "the variables to set",
				ElemInfo: &schema.ParameterInfo{Type: schema.Object, SubParams: map[string]*schema.ParameterInfo{
					"keyword": {Type: schema.String, Required: true, Desc: "one of the defined keywords"},
					"value":   {Type: schema.String, Required: true, Desc: "the value to remember"},
				}}},
		}),
	}, nil
}

func (t keywordMemoryTool) InvokableRun(ctx context.Context, args string, _ ...tool.Option) (string, error) {
	var in struct {
		Data []struct {
			Keyword string `json:"keyword"`
			Value   any    `json:"value"`
		} `json:"data"`
	}
	if err := json.Unmarshal([]byte(args), &in); err != nil {
		return `error: arguments must be {"data":[{"keyword":"...","value":"..."}]}`, nil
	}
	kvs := make([]variable.KV, 0, len(in.Data))
	for _, d := range in.Data {
		kvs = append(kvs, variable.KV{Keyword: d.Keyword, Value: stringify(d.Value)})
	}
	rs := runFrom(ctx)
	accepted, refused, err := rs.s.d.Bots.SetVariables(ctx, rs.t.scope, t.defs, kvs)
	if err != nil {
		return "", err
	}
	return describeMemoryWrite(accepted, refused), nil
}

func stringify(v any) string {
	if s, ok := v.(string); ok {
		return s
	}
	b, _ := json.Marshal(v)
	return string(b)
}

func describeMemoryWrite(accepted []variable.KV, refused []string) string {
	var parts []string
	if len(accepted) > 0 {
		keys := make([]string, len(accepted))
		for i, kv := range accepted {
			keys[i] = kv.Keyword
		}
		parts = append(parts, "saved: "+strings.Join(keys, ", "))
	}
	if len(refused) > 0 {
		parts = append(parts, "refused (not defined for this bot, or value too long): "+strings.Join(refused, ", "))
	}
	if len(parts) == 0 {
		return "nothing to save"
	}
	return strings.Join(parts, "; ")
}

// clientTool is a tool the API caller runs. Calling it ends the run with
// requires_action; the caller's output continues it later.
type clientTool struct {
	spec bot.ClientTool
}

func (clientTool) ToolOrigin() string { return "client" }

func (t clientTool) Info(context.Context) (*schema.ToolInfo, error) {
	info := &schema.ToolInfo{Name: t.spec.Name, Desc: t.spec.Description}
	if t.spec.Parameters != nil {
		js, err := parametersSchema(t.spec.Parameters)
		if err != nil {
			return nil, fmt.Errorf("client tool %s: parameters: %w", t.spec.Name, err)
		}
		info.ParamsOneOf = schema.NewParamsOneOfByJSONSchema(js)
	}
	return info, nil
}

// parametersSchema reads a tool's parameters as a JSON Schema.
func parametersSchema(params map[string]any) (*jsonschema.Schema, error) {
	b, err := json.Marshal(params)
	if err != nil {
		return nil, err
	}
	var js jsonschema.Schema
	if err := json.Unmarshal(b, &js); err != nil {
		return nil, err
	}
	return &js, nil
}

func (t clientTool) InvokableRun(ctx context.Context, args string, _ ...tool.Option) (string, error) {
	runFrom(ctx).waitFor(compose.GetToolCallID(ctx), t.spec.Name, args)
	if err := react.SetReturnDirectly(ctx); err != nil {
		return "", err
	}
	return "", nil
}
