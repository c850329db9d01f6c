package main

import (
	"encoding/json"
	"strings"
	"testing"

	tracepb "go.opentelemetry.io/proto/otlp/trace/v1"
)

// wantAttrs fails unless sp has every key of want, with its value ("*":
// any value that is not empty).
func wantAttrs(t *testing.T, what string, sp otlpSpan, want map[string]string) {
	t.Helper()
	for k, v := range want {
		got, ok := sp.attrs[k]
		if !ok || got == "" || (v != "*" && got != v) {
			t.Errorf("%s %q: %s = %q, want %q (all: %v)", what, sp.name, k, got, v, sp.attrs)
		}
	}
}

// checkGenAITurn checks every required and recommended attribute of the
// GenAI conventions (v1.41.0) on the exported spans of a bot turn that
// called the getWeather plugin tool: invoke_agent, its two chat calls and
// execute_tool; with capture, the messages in the conventions' JSON.
func checkGenAITurn(t *testing.T, r *otlpReceiver, root, tool otlpSpan, capture bool) {
	t.Helper()
	model := map[string]string{"gen_ai.provider.name": "openai", "gen_ai.request.model": "fake", "server.address": "127.0.0.1",
		"server.port": "*", "gen_ai.conversation.id": root.attrs["gen_ai.conversation.id"], "pergola.model.id": "fake"}
	agent := map[string]string{"gen_ai.operation.name": "invoke_agent", "gen_ai.agent.name": "Forecaster", "gen_ai.agent.id": "*",
		"gen_ai.agent.version": "*", "gen_ai.conversation.id": "*", "gen_ai.usage.input_tokens": "*", "gen_ai.usage.output_tokens": "*",
		"gen_ai.response.finish_reasons": "stop"}
	wantAttrs(t, "invoke_agent", root, merge(agent, model))
	if root.name != "invoke_agent Forecaster" || root.kind != tracepb.Span_SPAN_KIND_INTERNAL {
		t.Errorf("agent span %q kind %v, want invoke_agent Forecaster, internal", root.name, root.kind)
	}
	calls := r.spansWhere(func(sp otlpSpan) bool { return sp.traceID == root.traceID && sp.name == "chat fake" })
	if len(calls) != 2 {
		t.Fatalf("chat spans of the turn: %d, want 2", len(calls))
	}
	for i, c := range calls {
		wantAttrs(t, "chat", c, merge(model, map[string]string{"gen_ai.operation.name": "chat", "gen_ai.response.id": "*",
			"gen_ai.response.finish_reasons": "*", "gen_ai.usage.input_tokens": "*", "gen_ai.usage.output_tokens": "*",
			"gen_ai.request.stream": "true"}))
		if c.kind != tracepb.Span_SPAN_KIND_CLIENT || !strings.HasPrefix(c.attrs["gen_ai.response.id"], "chatcmpl-") {
			t.Errorf("chat span %d: kind %v, response id %q", i, c.kind, c.attrs["gen_ai.response.id"])
		}
	}
	if calls[0].attrs["gen_ai.response.time_to_first_chunk"] == "" && calls[1].attrs["gen_ai.response.time_to_first_chunk"] == "" {
		t.Errorf("no chat span has a time to first chunk (the answer's call streams text)")
	}
	wantAttrs(t, "execute_tool", tool, map[string]string{"gen_ai.operation.name": "execute_tool", "gen_ai.tool.name": "getWeather",
		"gen_ai.tool.call.id": "*", "gen_ai.tool.type": "extension", "gen_ai.tool.description": "*"})
	if capture {
		checkGenAIMessages(t, calls)
	}
}

// checkGenAIMessages: the first call's output asks for the tool (a
// tool_call part), the second call's input answers it (tool_call_response)
// after the user's text; instructions are not among the messages.
func checkGenAIMessages(t *testing.T, calls []otlpSpan) {
	t.Helper()
	first, second := calls[0], calls[1]
	if first.start.After(second.start) {
		first, second = second, first
	}
	out := genaiMessages(t, first.attrs["gen_ai.output.messages"])
	if len(out) != 1 || out[0].Role != "assistant" || out[0].FinishReason == "" || partOf(out[0], "tool_call") == nil ||
		partOf(out[0], "tool_call")["name"] != "getWeather" {
		t.Errorf("first call's output messages = %s", first.attrs["gen_ai.output.messages"])
	}
	in := genaiMessages(t, second.attrs["gen_ai.input.messages"])
	var roles []string
	var response map[string]any
	for _, m := range in {
		roles = append(roles, m.Role)
		if p := partOf(m, "tool_call_response"); p != nil {
			response = p
		}
		if m.Role == "system" {
			t.Errorf("a system message among the input messages: %s", second.attrs["gen_ai.input.messages"])
		}
	}
	if response == nil || response["response"] == nil || !strings.Contains(strings.Join(roles, ","), "user,assistant,tool") {
		t.Errorf("second call's input messages (roles %v) = %s", roles, second.attrs["gen_ai.input.messages"])
	}
	if sys := second.attrs["gen_ai.system_instructions"]; sys != "" {
		var parts []map[string]any
		if err := json.Unmarshal([]byte(sys), &parts); err != nil || len(parts) == 0 || parts[0]["type"] != "text" {
			t.Errorf("system instructions = %s", sys)
		}
	}
}

// checkGenAINode: an llm node of a workflow is exported as a chat span.
func checkGenAINode(t *testing.T, sp otlpSpan, capture bool) {
	t.Helper()
	wantAttrs(t, "llm node", sp, map[string]string{"gen_ai.operation.name": "chat", "gen_ai.provider.name": "openai",
		"gen_ai.request.model": "fake", "server.address": "127.0.0.1", "server.port": "*", "gen_ai.response.id": "*",
		"gen_ai.response.finish_reasons": "*", "gen_ai.usage.input_tokens": "*", "gen_ai.usage.output_tokens": "*",
		"pergola.node.id": "write", "pergola.node.type": "llm"})
	if sp.kind != tracepb.Span_SPAN_KIND_CLIENT {
		t.Errorf("llm node span kind %v, want client", sp.kind)
	}
	if _, has := sp.attrs["gen_ai.input.messages"]; has != capture {
		t.Errorf("llm node input messages exported %v with capture %v", has, capture)
	}
	if capture && len(genaiMessages(t, sp.attrs["gen_ai.input.messages"])) == 0 {
		t.Errorf("llm node input messages = %s", sp.attrs["gen_ai.input.messages"])
	}
}

type genaiMessage struct {
	Role         string           `json:"role"`
	Parts        []map[string]any `json:"parts"`
	FinishReason string           `json:"finish_reason"`
}

func genaiMessages(t *testing.T, raw string) []genaiMessage {
	t.Helper()
	var msgs []genaiMessage
	if err := json.Unmarshal([]byte(raw), &msgs); err != nil {
		t.Errorf("messages %q: %v", raw, err)
	}
	for _, m := range msgs {
		for _, p := range m.Parts {
			if p["type"] == nil || p["type"] == "" {
				t.Errorf("a part without a type in %s", raw)
			}
		}
	}
	return msgs
}

func partOf(m genaiMessage, typ string) map[string]any {
	for _, p := range m.Parts {
		if p["type"] == typ {
			return p
		}
	}
	return nil
}

func merge(a, b map[string]string) map[string]string {
	out := map[string]string{}
	for k, v := range a {
		out[k] = v
	}
	for k, v := range b {
		out[k] = v
	}
	return out
}

// spansWhere returns the received spans match accepts.
func (r *otlpReceiver) spansWhere(match func(otlpSpan) bool) []otlpSpan {
	r.mu.Lock()
	defer r.mu.Unlock()
	var out []otlpSpan
	for _, sp := range r.spans {
		if match(sp) {
			out = append(out, sp)
		}
	}
	return out
}
