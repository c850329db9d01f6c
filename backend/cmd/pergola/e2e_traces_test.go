package main

import (
	"strings"
	"testing"
)

// TestRunTraces: a chat turn that calls a plugin tool, one that calls a
// workflow as a tool, and a workflow run with an llm node appear as span
// trees in GET /api/traces/{id} (root, model spans with tokens, tool
// spans with arguments and result, the workflow nested under its tool,
// node spans) and in an OTLP receiver (same names, parent links, gen_ai
// attributes; content only when captured: on for SQLite, off for
// MariaDB). Another workspace's member and unknown ids get 404.
func TestRunTraces(t *testing.T) {
	t.Setenv("OTEL_RESOURCE_ATTRIBUTES", "deployment.environment.name=e2e") // read by the SDK's resource
	for i, b := range backends() {
		t.Run(b.name, func(t *testing.T) {
			capture := i == 0
			otlp := newOTLPReceiver(t)
			api := newWeatherAPI(t)
			c := newChatSetup(t, withEnv(b, map[string]string{"PERGOLA_EGRESS_ALLOW": "127.0.0.1",
				"PERGOLA_OTLP_ENDPOINT": otlp.URL, "PERGOLA_OTLP_CAPTURE_CONTENT": map[bool]string{true: "true", false: "false"}[capture]}))
			s := c.s
			pluginID := str(s.call(t, "POST", "/api/plugins", bootstrapToken, map[string]any{
				"workspace_id": c.ws, "openapi": weatherDoc, "server_url": api.URL + "/v1",
				"auth": map[string]any{"type": "api_key", "location": "header", "name": "X-Api-Key", "key": weatherKey},
			}).must(t, 201).data, "id")
			s.call(t, "POST", "/api/plugins/"+pluginID+"/publish", bootstrapToken, nil).must(t, 201)
			weather := c.workflow(t, "weather_report", "tells the weather of a city", weatherWorkflow, true)
			poem := c.workflow(t, "write_poem", "writes a poem", poemWorkflow, true)
			botID := c.bot(t, map[string]any{"name": "Forecaster", "model": map[string]any{"model_id": "fake"},
				"plugins":   []map[string]any{{"plugin_id": pluginID, "tool": "getWeather"}},
				"workflows": []map[string]any{{"workflow_id": weather}}})

			pluginChat := chatID(t, s.stream(t, "/v3/chat", bootstrapToken, map[string]any{"bot_id": botID, "user_id": "u1", "stream": true,
				"additional_messages": userMessage(`#call getWeather {"city":"Paris"}`)}))
			root := checkPluginTrace(t, s.waitTrace(t, pluginChat, 1), pluginChat, c.ws)
			checkPluginExport(t, otlp, root, pluginChat, capture)
			checkExemplars(t, s, otlp, pluginChat)

			wfChat := chatID(t, s.stream(t, "/v3/chat", bootstrapToken, map[string]any{"bot_id": botID, "user_id": "u1", "stream": true,
				"additional_messages": userMessage(`#call weather_report {"city":"Rome"}`)}))
			checkNestedWorkflow(t, s.waitTrace(t, wfChat, 1), otlp, weather)

			run := s.call(t, "POST", "/v1/workflow/run", bootstrapToken, map[string]any{"workflow_id": poem,
				"parameters": map[string]any{"topic": "rain"}}).must(t, 200)
			checkWorkflowTrace(t, s.waitTrace(t, str(run.raw, "execute_id"), 1), otlp, poem, capture)

			other, _ := secondUser(t, s, "other-traces@x.io")
			for _, id := range []string{pluginChat, str(run.raw, "execute_id")} {
				s.call(t, "GET", "/api/traces/"+id, other, nil).fails(t, 404, 4200, "trace "+id+" not found")
			}
			s.call(t, "GET", "/api/traces/123456789", bootstrapToken, nil).fails(t, 404, 4200, "trace 123456789 not found")
			s.call(t, "GET", "/api/traces/abc", bootstrapToken, nil).fails(t, 400, 4000, "id")
		})
	}
}

func chatID(t *testing.T, events []sseEvent) string {
	t.Helper()
	for _, e := range events {
		if e.name == "conversation.chat.created" {
			return str(e.obj(t), "id")
		}
	}
	t.Fatalf("no chat.created in %v", names(events))
	return ""
}

// checkPluginTrace checks the stored tree of a turn that called
// getWeather: root, model call, tool call with its arguments and result,
// model call again.
func checkPluginTrace(t *testing.T, tr map[string]any, id, ws string) spanNode {
	t.Helper()
	if str(tr, "trace_id") != id || str(tr, "workspace_id") != ws || str(tr, "kind") != "chat" {
		t.Fatalf("trace = %v", tr)
	}
	root := items(t, tr, "runs")[0]["root"].(map[string]any)
	if str(root, "kind") != "chat" || str(root, "status") != "ok" || attr(root, "gen_ai.operation.name") != "invoke_agent" ||
		attr(root, "pergola.outcome") != "completed" {
		t.Fatalf("root = %v", root)
	}
	if got := strings.Join(childNames(t, root), ","); got != "chat fake,execute_tool getWeather,chat fake" {
		t.Fatalf("root children = %s", got)
	}
	kids := children(t, root)
	model, tool := kids[0], kids[1]
	if in, _ := attr(model, "gen_ai.usage.input_tokens").(float64); in <= 0 || attr(model, "gen_ai.request.model") != "fake" ||
		!strings.Contains(attr(model, "gen_ai.input.messages").(string), "#call getWeather") {
		t.Fatalf("model span = %v", model)
	}
	if _, ok := attr(model, "pergola.time_to_first_token_ms").(float64); !ok && attr(kids[2], "pergola.time_to_first_token_ms") == nil {
		t.Fatalf("no model span has a time to first token: %v", kids)
	}
	if attr(tool, "gen_ai.tool.name") != "getWeather" || attr(tool, "gen_ai.tool.call.arguments") != `{"city":"Paris"}` ||
		!strings.Contains(attr(tool, "gen_ai.tool.call.result").(string), `"temp":21`) || str(tool, "status") != "ok" {
		t.Fatalf("tool span = %v", tool)
	}
	return root
}

// checkPluginExport finds the same spans in the OTLP receiver, linked.
func checkPluginExport(t *testing.T, r *otlpReceiver, root spanNode, chat string, capture bool) {
	t.Helper()
	rootSp := r.waitSpan(t, "invoke_agent of chat "+chat, func(sp otlpSpan) bool { return sp.attrs["pergola.chat.id"] == chat })
	tool := r.waitSpan(t, "execute_tool getWeather", func(sp otlpSpan) bool {
		return sp.name == "execute_tool getWeather" && sp.traceID == rootSp.traceID
	})
	model := r.waitSpan(t, "chat fake", func(sp otlpSpan) bool { return sp.name == "chat fake" && sp.traceID == rootSp.traceID })
	if tool.parentID != rootSp.spanID || model.parentID != rootSp.spanID || rootSp.parentID != "" {
		t.Fatalf("parents: root %q, tool %q, model %q; want tool and model under root %s", rootSp.parentID, tool.parentID, model.parentID, rootSp.spanID)
	}
	if rootSp.name != str(root, "name") || rootSp.attrs["gen_ai.operation.name"] != "invoke_agent" || tool.attrs["gen_ai.operation.name"] != "execute_tool" ||
		tool.attrs["gen_ai.tool.name"] != "getWeather" || tool.attrs["gen_ai.tool.call.id"] == "" || model.attrs["gen_ai.request.model"] != "fake" ||
		model.attrs["gen_ai.usage.input_tokens"] == "" || model.attrs["gen_ai.usage.output_tokens"] == "" || rootSp.attrs["gen_ai.conversation.id"] == "" {
		t.Fatalf("attributes: root %v, tool %v, model %v", rootSp.attrs, tool.attrs, model.attrs)
	}
	if !tool.end.After(tool.start) || tool.start.Before(rootSp.start) || tool.end.After(rootSp.end) {
		t.Fatalf("tool span %v..%v is not inside the turn %v..%v", tool.start, tool.end, rootSp.start, rootSp.end)
	}
	_, hasArgs := tool.attrs["gen_ai.tool.call.arguments"]
	_, hasPrompt := model.attrs["gen_ai.input.messages"]
	if hasArgs != capture || hasPrompt != capture {
		t.Fatalf("capture content %v: tool arguments exported %v, prompt exported %v", capture, hasArgs, hasPrompt)
	}
	if len(r.services) == 0 || r.services[0] != "pergola" || r.resource["deployment.environment.name"] != "e2e" ||
		r.resource["telemetry.sdk.name"] != "opentelemetry" {
		t.Fatalf("service names = %v, resource = %v", r.services, r.resource)
	}
	checkGenAITurn(t, r, rootSp, tool, capture)
}

// checkNestedWorkflow: the workflow a tool call ran is under that tool's
// span, with its nodes, in the API and in the export.
func checkNestedWorkflow(t *testing.T, tr map[string]any, r *otlpReceiver, workflowID string) {
	t.Helper()
	root := items(t, tr, "runs")[0]["root"].(map[string]any)
	tool := childNamed(t, root, "execute_tool weather_report")
	wf := childNamed(t, tool, "workflow "+workflowID)
	if got := strings.Join(childNames(t, wf), ","); got != "node start,node end" {
		t.Fatalf("workflow children = %s", got)
	}
	if attr(wf, "pergola.outcome") != "success" || attr(wf, "pergola.workflow.mode") != "bot" {
		t.Fatalf("workflow span = %v", wf)
	}
	sp := r.waitSpan(t, "workflow under its tool", func(sp otlpSpan) bool {
		if sp.name != "workflow "+workflowID {
			return false
		}
		parent, ok := r.byID(sp.parentID)
		return ok && parent.name == "execute_tool weather_report"
	})
	r.waitSpan(t, "node end under the workflow", func(n otlpSpan) bool { return n.name == "node end" && n.parentID == sp.spanID })
}

// checkWorkflowTrace: a run's nodes, the llm node with its tokens and
// (captured) data.
func checkWorkflowTrace(t *testing.T, tr map[string]any, r *otlpReceiver, workflowID string, capture bool) {
	t.Helper()
	root := items(t, tr, "runs")[0]["root"].(map[string]any)
	if str(tr, "kind") != "workflow" || str(root, "name") != "workflow "+workflowID || attr(root, "pergola.outcome") != "success" {
		t.Fatalf("trace = %v", tr)
	}
	if got := strings.Join(childNames(t, root), ","); got != "node start,node note,chat fake,node end" {
		t.Fatalf("run children = %s", got)
	}
	write := childNamed(t, root, "chat fake")
	if attr(write, "pergola.node.type") != "llm" || attr(write, "gen_ai.usage.input_tokens") == nil ||
		!strings.Contains(attr(write, "pergola.node.outputs").(string), "echo: Poem on rain") {
		t.Fatalf("llm node span = %v", write)
	}
	exec := str(tr, "trace_id")
	rootSp := r.waitSpan(t, "workflow run "+exec, func(sp otlpSpan) bool { return sp.attrs["pergola.workflow.execute_id"] == exec })
	w := r.waitSpan(t, "llm node write", func(sp otlpSpan) bool { return sp.name == "chat fake" && sp.parentID == rootSp.spanID })
	if _, has := w.attrs["pergola.node.outputs"]; has != capture || w.attrs["gen_ai.usage.input_tokens"] == "" {
		t.Fatalf("exported llm node attributes (capture %v) = %v", capture, w.attrs)
	}
	checkGenAINode(t, w, capture)
}
