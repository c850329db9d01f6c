package main

import (
	"encoding/json"
	"strings"
	"testing"
)

// Workflows bound as bot tools in the e2e tests.
const (
	// weatherWorkflow returns variables: the model reads their JSON.
	weatherWorkflow = `{"nodes": [
	  {"id": "start", "type": "start", "outputs": [{"name": "city", "type": "string", "required": true, "description": "the city"}]},
	  {"id": "end", "type": "end", "inputs": {"city": {"ref": {"node": "start", "path": "city"}}, "temp": {"value": 21}}}],
	 "edges": [{"from": "start", "to": "end"}]}`
	// poemWorkflow shows a message, then returns the text an llm node
	// writes: the bot's answer, streamed.
	poemWorkflow = `{"nodes": [
	  {"id": "start", "type": "start", "outputs": [{"name": "topic", "type": "string", "required": true}]},
	  {"id": "note", "type": "message", "config": {"template": "Thinking about {{t}}"}, "inputs": {"t": {"ref": {"node": "start", "path": "topic"}}}},
	  {"id": "write", "type": "llm", "config": {"model_id": "fake", "prompt": "Poem on {{t}}"}, "inputs": {"t": {"ref": {"node": "start", "path": "topic"}}}},
	  {"id": "end", "type": "end", "config": {"mode": "text", "template": "Poem: {{p}}"}, "inputs": {"p": {"ref": {"node": "write", "path": "output"}}}}],
	 "edges": [{"from": "start", "to": "note"}, {"from": "note", "to": "write"}, {"from": "write", "to": "end"}]}`
)

// workflow creates a workflow in the setup's workspace, published when
// publish is set, and returns its id.
func (c *chatSetup) workflow(t *testing.T, name, description, def string, publish bool) string {
	t.Helper()
	created := c.s.call(t, "POST", "/api/workflows", bootstrapToken, map[string]any{"workspace_id": c.ws, "name": name,
		"description": description, "definition": json.RawMessage(def)}).must(t, 201)
	id := str(created.data, "id")
	if publish {
		c.s.call(t, "POST", "/api/workflows/"+id+"/publish", bootstrapToken, nil).must(t, 201)
	}
	return id
}

// toolRequests counts the model requests of the bot's agent (those that
// offer tools), leaving out the llm nodes of workflows.
func (c *chatSetup) toolRequests() int {
	n := 0
	for _, r := range c.llm.Requests() {
		if len(r.Tools) > 0 {
			n++
		}
	}
	return n
}

// chatParts returns the streamed answer deltas and the completed messages
// of a chat stream, in order.
func chatParts(t *testing.T, events []sseEvent) (deltas []string, completed []map[string]any) {
	t.Helper()
	for _, e := range events {
		switch e.name {
		case "conversation.message.delta":
			deltas = append(deltas, str(e.obj(t), "content"))
		case "conversation.message.completed":
			completed = append(completed, e.obj(t))
		}
	}
	return deltas, completed
}

// completedOfType returns the contents of completed messages of a type.
func completedOfType(msgs []map[string]any, typ string) []string {
	var out []string
	for _, m := range msgs {
		if str(m, "type") == typ {
			out = append(out, str(m, "content"))
		}
	}
	return out
}

func joined(parts []string) string { return strings.Join(parts, "") }
