package main

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/pergola-ai/pergola/infra/fakellm"
)

// streamFlagsCanvas: an LLM node whose answer an output emitter shows,
// then an End node answering with it (useAnswerContent); the Start input
// is shown too.
func streamFlagsCanvas(t *testing.T) []byte {
	lit := func(v string) cz { return czLit("string", v) }
	llm := czNode("200", "3", "LLM", cz{
		"inputParameters": []cz{czParam("input", czRef("100001", "q", "string"))},
		"llmParam": []cz{czParam("modelType", lit("1001")), czParam("prompt", lit("{{input}}")),
			czParam("systemPrompt", lit("")), czParam("responseFormat", lit("0"))},
	}, czOut("output", "string"))
	emit := czNode("300", "13", "Emit", cz{"streamingOutput": true, "content": lit("Heard: {{a}}"),
		"inputParameters": []cz{czParam("a", czRef("200", "output", "string"))}})
	end := czNode("900001", "2", "End", cz{"terminatePlan": "useAnswerContent", "streamingOutput": true,
		"content": lit("{{q}} -> {{a}}"), "inputParameters": []cz{czParam("a", czRef("200", "output", "string")),
			czParam("q", czRef("100001", "q", "string"))}})
	return czCanvas(t, []cz{czStart(czOut("q", "string")), llm, emit, end},
		czEdge("100001", "200"), czEdge("200", "300"), czEdge("200", "900001"), czEdge("300", "900001"))
}

// plainAnswerCanvas: an End node answering with the Start input only.
func plainAnswerCanvas(t *testing.T) []byte {
	end := czNode("900001", "2", "End", cz{"terminatePlan": "useAnswerContent", "content": czLit("string", "You said {{q}}"),
		"inputParameters": []cz{czParam("q", czRef("100001", "q", "string"))}})
	return czCanvas(t, []cz{czStart(czOut("q", "string")), end}, czEdge("100001", "900001"))
}

// TestCozeStreamFlags: in stream_run a streamed End answer or output
// emitter comes in several Message events, node_is_finish false on all
// but the last, which carries text; their contents join to the node's
// text. So does an End answering with a variable aggregator's merge of
// two LLM branches, whichever ran. A node that does not stream sends one
// Message, finished. SQLite, and MariaDB with Redis.
func TestCozeStreamFlags(t *testing.T) {
	for _, b := range backends() {
		t.Run(b.name, func(t *testing.T) {
			c := newChatSetup(t, b)
			id := c.importPublished(t, "flags", streamFlagsCanvas(t), nil)
			c.llm.Reset()
			c.llm.Enqueue(fakellm.Text("a rather long answer"))
			events := c.s.workflowStream(t, cz{"workflow_id": id, "parameters": cz{"q": "hi"}})
			checkMessageFlags(t, events, "n300", 3, "Heard: a rather long answer")
			checkMessageFlags(t, events, "end", 3, "hi -> a rather long answer")

			id = c.importPublished(t, "plain", plainAnswerCanvas(t), nil)
			events = c.s.workflowStream(t, cz{"workflow_id": id, "parameters": cz{"q": "hello"}})
			checkMessageFlags(t, events, "end", 1, "You said hello")
			if got := nodeMessages(events, "end"); got != 1 {
				t.Errorf("a plain answer came in %d Messages, want 1", got)
			}

			cc := readCozeCase(t, filepath.Join(conformanceDir, "aggregate_stream.case.json"))
			id = c.importPublished(t, "merge", cc.Canvas, nil)
			for _, run := range cc.Runs {
				c.script(run.Model)
				events := c.s.workflowStream(t, cz{"workflow_id": id, "parameters": run.Inputs})
				checkMessageFlags(t, events, "end", 3, run.Output["output"].(string))
			}
		})
	}
}

// checkMessageFlags checks the Message events of node: at least min,
// node_is_finish on the last only, which is not empty, and contents
// joining to want.
func checkMessageFlags(t *testing.T, events []wfEvent, node string, min int, want string) {
	t.Helper()
	var msgs []map[string]any
	for _, e := range events {
		if e.name == "Error" {
			t.Fatalf("the stream failed: %v", e.data)
		}
		if e.name == "Message" && str(e.data, "node_id") == node {
			msgs = append(msgs, e.data)
		}
	}
	var got strings.Builder
	for i, m := range msgs {
		got.WriteString(str(m, "content"))
		if finish, _ := m["node_is_finish"].(bool); finish != (i == len(msgs)-1) {
			t.Errorf("node %s: Message %d of %d has node_is_finish %v", node, i+1, len(msgs), finish)
		}
	}
	if len(msgs) < min {
		t.Errorf("node %s: %d Messages, want at least %d: %v", node, len(msgs), min, msgs)
	}
	if len(msgs) > 0 && str(msgs[len(msgs)-1], "content") == "" {
		t.Errorf("node %s: the finished Message is empty", node)
	}
	if got.String() != want {
		t.Errorf("node %s: Messages join to %q, want %q", node, got.String(), want)
	}
}

// nodeMessages counts the Message events of node.
func nodeMessages(events []wfEvent, node string) int {
	n := 0
	for _, e := range events {
		if e.name == "Message" && str(e.data, "node_id") == node {
			n++
		}
	}
	return n
}
