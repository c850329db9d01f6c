package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/cloudwego/eino/components/model"
	"github.com/cloudwego/eino/components/tool"
	"github.com/cloudwego/eino/compose"
	"github.com/cloudwego/eino/flow/agent/react"
	"github.com/cloudwego/eino/schema"

	"github.com/pergola-ai/pergola/domain/llm"
	"github.com/pergola-ai/pergola/infra/provider"
)

// bareAgents are the baseline: eino ReAct agents in this process, on the
// same fake model over HTTP through the same eino-ext OpenAI client the
// server builds, one without tools and one with a trivial tool.
type bareAgents struct {
	plain, tool *react.Agent
}

func newBareAgents(ctx context.Context, llmURL string) (*bareAgents, error) {
	cm, err := provider.Factory{}.ChatModel(ctx, llm.Model{ID: "fake", Provider: llm.ProviderOpenAI, BaseURL: llmURL,
		APIKey: "k", Model: "fake", Enabled: true, Capabilities: llm.Capabilities{Tools: true}})
	if err != nil {
		return nil, err
	}
	plain, err := newAgent(ctx, cm, nil)
	if err != nil {
		return nil, err
	}
	withTool, err := newAgent(ctx, cm, []tool.BaseTool{rememberTool{}})
	if err != nil {
		return nil, err
	}
	return &bareAgents{plain: plain, tool: withTool}, nil
}

func newAgent(ctx context.Context, cm model.ToolCallingChatModel, tools []tool.BaseTool) (*react.Agent, error) {
	return react.NewAgent(ctx, &react.AgentConfig{ToolCallingModel: cm,
		ToolsConfig: compose.ToolsNodeConfig{Tools: tools}, StreamToolCallChecker: scanForToolCalls})
}

// scanForToolCalls reads a streamed model message until a tool call or
// its end, like the server's agent (eino's default stops at the first
// text).
func scanForToolCalls(_ context.Context, sr *schema.StreamReader[*schema.Message]) (bool, error) {
	defer sr.Close()
	for {
		m, err := sr.Recv()
		if errors.Is(err, io.EOF) {
			return false, nil
		}
		if err != nil {
			return false, err
		}
		if len(m.ToolCalls) > 0 {
			return true, nil
		}
	}
}

// rememberTool is the baseline's tool round: it takes setKeywordMemory's
// arguments and does nothing with them.
type rememberTool struct{}

func (rememberTool) Info(context.Context) (*schema.ToolInfo, error) {
	return &schema.ToolInfo{Name: "setKeywordMemory", Desc: "Remember facts about the user.",
		ParamsOneOf: schema.NewParamsOneOfByParams(map[string]*schema.ParameterInfo{
			"data": {Type: schema.Array, Required: true, ElemInfo: &schema.ParameterInfo{Type: schema.Object}}})}, nil
}

func (rememberTool) InvokableRun(_ context.Context, args string, _ ...tool.Option) (string, error) {
	return `{"saved":true}`, nil
}

func bareInput(text string) []*schema.Message {
	return []*schema.Message{schema.SystemMessage(botPrompt), schema.UserMessage(text)}
}

// bareStream streams one answer and drains it; first is the first
// non-empty text chunk.
func bareStream(ag *react.Agent, text, want string) (turn, error) {
	t0 := time.Now()
	sr, err := ag.Stream(context.Background(), bareInput(text))
	if err != nil {
		return turn{}, err
	}
	defer sr.Close()
	var t turn
	var answer strings.Builder
	for {
		m, err := sr.Recv()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return t, err
		}
		if m.Content != "" && t.first == 0 {
			t.first = time.Since(t0)
		}
		answer.WriteString(m.Content)
	}
	t.total = time.Since(t0)
	return t, checkAnswer(answer.String(), want)
}

// bareGenerate asks for one answer without streaming.
func bareGenerate(ag *react.Agent, text, want string) (turn, error) {
	t0 := time.Now()
	m, err := ag.Generate(context.Background(), bareInput(text))
	if err != nil {
		return turn{}, err
	}
	t := turn{total: time.Since(t0)}
	t.first = t.total
	return t, checkAnswer(m.Content, want)
}

func checkAnswer(answer, want string) error {
	if !strings.HasPrefix(answer, want) {
		return fmt.Errorf("bare answer %q, want it to start with %q", answer, want)
	}
	return nil
}
