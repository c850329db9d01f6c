package fakellm_test

import (
	"context"
	"errors"
	"io"
	"testing"

	"github.com/cloudwego/eino/components/tool"
	"github.com/cloudwego/eino/components/tool/utils"
	"github.com/cloudwego/eino/compose"
	"github.com/cloudwego/eino/flow/agent/react"
	"github.com/cloudwego/eino/schema"
	"github.com/google/go-cmp/cmp"

	"github.com/pergola-ai/pergola/infra/fakellm"
)

type addInput struct {
	A int `json:"a"`
	B int `json:"b"`
}

func newAddTool(t *testing.T) tool.InvokableTool {
	t.Helper()
	add, err := utils.InferTool("add", "adds a and b",
		func(_ context.Context, in addInput) (int, error) { return in.A + in.B, nil })
	if err != nil {
		t.Fatalf("infer tool: %v", err)
	}
	return add
}

// scanAll is the stream tool-call checker Pergola needs: it looks at every
// chunk, so text before a tool call does not end the run.
func scanAll(_ context.Context, sr *schema.StreamReader[*schema.Message]) (bool, error) {
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

func TestReactAgentRound(t *testing.T) {
	cases := []struct {
		name   string
		stream bool
		first  *fakellm.Reply // nil: the default behaviour decides
	}{
		{"generate, default behaviour", false, nil},
		{"stream, default behaviour", true, nil},
		{"stream, text before the call", true, &fakellm.Reply{
			Text: "Let me add. ", ToolCalls: []fakellm.ToolCall{fakellm.Call("add", `{"a":2,"b":3}`)},
		}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			s := fakellm.Start(t)
			if tc.first != nil {
				s.Enqueue(*tc.first)
			}
			agent, err := react.NewAgent(context.Background(), &react.AgentConfig{
				ToolCallingModel:      newClient(t, s),
				ToolsConfig:           compose.ToolsNodeConfig{Tools: []tool.BaseTool{newAddTool(t)}},
				StreamToolCallChecker: scanAll,
			})
			if err != nil {
				t.Fatalf("new agent: %v", err)
			}
			answer := runAgent(t, agent, tc.stream, user(`what is 2+3? #call add {"a":2,"b":3}`))
			if answer.Content != "tool said: 5" {
				t.Errorf("answer = %q, want %q", answer.Content, "tool said: 5")
			}
			assertToolRound(t, s.Requests())
		})
	}
}

func runAgent(t *testing.T, a *react.Agent, stream bool, in []*schema.Message) *schema.Message {
	t.Helper()
	if !stream {
		msg, err := a.Generate(context.Background(), in)
		if err != nil {
			t.Fatalf("agent generate: %v", err)
		}
		return msg
	}
	sr, err := a.Stream(context.Background(), in)
	if err != nil {
		t.Fatalf("agent stream: %v", err)
	}
	msg, err := schema.ConcatMessageStream(sr)
	if err != nil {
		t.Fatalf("agent stream concat: %v", err)
	}
	return msg
}

// assertToolRound checks that the second model request carried the
// assistant's tool call and the tool's result.
func assertToolRound(t *testing.T, reqs []fakellm.Request) {
	t.Helper()
	if len(reqs) != 2 {
		t.Fatalf("model saw %d requests, want 2", len(reqs))
	}
	msgs := reqs[1].Messages
	if len(msgs) != 3 {
		t.Fatalf("second request has %d messages, want 3: %+v", len(msgs), msgs)
	}
	calls := msgs[1].ToolCalls
	if msgs[1].Role != "assistant" || len(calls) != 1 || calls[0].Function.Name != "add" {
		t.Fatalf("second message = %+v, want the assistant's add call", msgs[1])
	}
	want := fakellm.Message{Role: "tool", Content: "5", ToolCallID: calls[0].ID}
	if diff := cmp.Diff(want, msgs[2]); diff != "" {
		t.Errorf("tool message (-want +got):\n%s", diff)
	}
}
