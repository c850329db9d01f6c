package workflow

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"

	"github.com/cloudwego/eino/components/model"
	"github.com/cloudwego/eino/schema"

	"github.com/pergola-ai/pergola/domain/errs"
)

// modelRule scripts the fake model: the first rule whose When is found in
// the last message (user or tool) answers. Without a match the model
// echoes: "echo: <user text>", or "tool said: <result>" after a tool.
type modelRule struct {
	When   string   `json:"when"`
	Reply  string   `json:"reply"`
	Chunks []string `json:"chunks"` // streamed pieces; joined for Generate
	Call   *struct {
		Name string `json:"name"`
		Args string `json:"args"`
	} `json:"call"`
	Error  string `json:"error"`
	Tokens int    `json:"tokens"` // output tokens reported (input: 10)
	// FailFirst makes the rule's first calls fail with Error, then answer.
	FailFirst int `json:"fail_first"`
}

// fakeModels is a ModelProvider of stateless scripted models.
type fakeModels struct {
	rules []modelRule
	mu    sync.Mutex
	calls [][]*schema.Message
	fails map[int]int // rule → failures so far
}

func (f *fakeModels) ChatModel(_ context.Context, id string) (model.ToolCallingChatModel, error) {
	if id != "fake" {
		return nil, errs.NotFound("model", id)
	}
	return &fakeModel{f: f}, nil
}

type fakeModel struct {
	f     *fakeModels
	tools []*schema.ToolInfo
}

func (m *fakeModel) WithTools(tools []*schema.ToolInfo) (model.ToolCallingChatModel, error) {
	return &fakeModel{f: m.f, tools: tools}, nil
}

func (m *fakeModel) reply(in []*schema.Message) (modelRule, error) {
	m.f.mu.Lock()
	m.f.calls = append(m.f.calls, in)
	m.f.mu.Unlock()
	last := in[len(in)-1]
	for i, r := range m.f.rules {
		if !strings.Contains(last.Content, r.When) || (r.Call != nil && last.Role != schema.User) {
			continue
		}
		if r.FailFirst > 0 {
			m.f.mu.Lock()
			if m.f.fails == nil {
				m.f.fails = map[int]int{}
			}
			m.f.fails[i]++
			failing := m.f.fails[i] <= r.FailFirst
			m.f.mu.Unlock()
			if failing {
				return r, errors.New(r.Error)
			}
			return r, nil
		}
		if r.Error != "" {
			return r, errors.New(r.Error)
		}
		return r, nil
	}
	if last.Role == schema.Tool {
		return modelRule{Reply: "tool said: " + last.Content}, nil
	}
	return modelRule{Reply: "echo: " + last.Content}, nil
}

func (r modelRule) message() *schema.Message {
	text := r.Reply
	if text == "" {
		text = strings.Join(r.Chunks, "")
	}
	msg := schema.AssistantMessage(text, nil)
	if r.Call != nil {
		idx := 0
		msg.ToolCalls = []schema.ToolCall{{Index: &idx, ID: "call_1", Type: "function",
			Function: schema.FunctionCall{Name: r.Call.Name, Arguments: r.Call.Args}}}
	}
	out := r.Tokens
	if out == 0 {
		out = len(strings.Fields(text)) + 1
	}
	msg.ResponseMeta = &schema.ResponseMeta{Usage: &schema.TokenUsage{PromptTokens: 10, CompletionTokens: out, TotalTokens: 10 + out}}
	return msg
}

func (m *fakeModel) Generate(_ context.Context, in []*schema.Message, _ ...model.Option) (*schema.Message, error) {
	r, err := m.reply(in)
	if err != nil {
		return nil, err
	}
	return r.message(), nil
}

func (m *fakeModel) Stream(_ context.Context, in []*schema.Message, _ ...model.Option) (*schema.StreamReader[*schema.Message], error) {
	r, err := m.reply(in)
	if err != nil {
		return nil, err
	}
	chunks := r.Chunks
	if len(chunks) == 0 {
		chunks = strings.SplitAfter(r.Reply, " ")
	}
	msgs := make([]*schema.Message, 0, len(chunks)+1)
	for _, c := range chunks {
		msgs = append(msgs, schema.AssistantMessage(c, nil))
	}
	last := r.message()
	last.Content = ""
	return schema.StreamReaderFromArray(append(msgs, last)), nil
}

// fakeTool is a scripted plugin tool: a fixed result, an error, or the
// arguments echoed back.
type fakeTool struct {
	Result string `json:"result"`
	Error  string `json:"error"`
	Echo   bool   `json:"echo"`
}

// fakeTools is a ToolInvoker keyed "plugin/tool".
type fakeTools struct {
	tools map[string]fakeTool
	mu    sync.Mutex
	calls []string
}

func (f *fakeTools) lookup(t ToolRef) (fakeTool, error) {
	ft, ok := f.tools[fmt.Sprintf("%d/%s", t.PluginID, t.Tool)]
	if !ok {
		return ft, errs.NotFound("tool", t.Tool)
	}
	return ft, nil
}

func (f *fakeTools) DescribeTool(_ context.Context, t ToolRef) (*schema.ToolInfo, error) {
	if _, err := f.lookup(t); err != nil {
		return nil, err
	}
	return &schema.ToolInfo{Name: t.Tool, Desc: "a fake tool"}, nil
}

func (f *fakeTools) InvokeTool(_ context.Context, t ToolRef, args string) (string, error) {
	f.mu.Lock()
	f.calls = append(f.calls, t.Tool+" "+args)
	f.mu.Unlock()
	ft, err := f.lookup(t)
	switch {
	case err != nil:
		return "", err
	case ft.Error != "":
		return "", errors.New(ft.Error)
	case ft.Echo:
		return args, nil
	}
	return ft.Result, nil
}
