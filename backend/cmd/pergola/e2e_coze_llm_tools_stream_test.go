package main

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/pergola-ai/pergola/infra/fakellm"
)

// llmSkillsAnswer is llmWithWorkflowSkills with an End that answers the
// LLM's text (Coze's useAnswerContent), so a streamed run streams it.
func llmSkillsAnswer(t *testing.T) json.RawMessage {
	var canvas map[string]any
	if err := json.Unmarshal(llmWithWorkflowSkills(t), &canvas); err != nil {
		t.Fatal(err)
	}
	nodes := canvas["nodes"].([]any)
	nodes[len(nodes)-1] = czNode("900001", "2", "End", cz{"terminatePlan": "useAnswerContent", "content": czLit("string", "{{answer}}"),
		"streamingOutput": true, "inputParameters": []cz{czParam("answer", czRef("200", "output", "string"))}})
	b, _ := json.Marshal(canvas)
	return b
}

// answerChunks are the contents of a stream's Message events and whether
// each is the node's last.
func answerChunks(events []wfEvent) (texts []string, finish []bool) {
	for _, e := range events {
		if e.name == "Message" {
			s, _ := e.data["content"].(string)
			f, _ := e.data["node_is_finish"].(bool)
			texts, finish = append(texts, s), append(finish, f)
		}
	}
	return texts, finish
}

// TestCozeLLMToolsStreamTheAnswer: in stream_run, an LLM node with
// workflow tools streams its final text into the End answer as the model
// generates it (several chunks, node_is_finish on the last only), and a
// tool that returns directly gives its text to the stream, the model not
// called again. On SQLite and on MariaDB with Redis.
func TestCozeLLMToolsStreamTheAnswer(t *testing.T) {
	for _, b := range backends() {
		t.Run(b.name, func(t *testing.T) {
			c := newChatSetup(t, b)
			id := c.importPublished(t, "agent_answer", llmSkillsAnswer(t), importToolWorkflows(t, c))

			c.llm.Reset()
			c.llm.Enqueue(toolCall("weather", `{"city":"Oslo"}`), fakellm.Text("It is sunny in Oslo."))
			texts, finish := answerChunks(c.s.workflowStream(t, cz{"workflow_id": id, "parameters": cz{"q": "weather in Oslo?"}}))
			if strings.Join(texts, "") != "It is sunny in Oslo." || len(texts) < 3 {
				t.Fatalf("streamed answer = %q, want the model's text in several chunks", texts)
			}
			for i, f := range finish {
				if f != (i == len(finish)-1) {
					t.Fatalf("node_is_finish = %v, want true on the last chunk only", finish)
				}
			}
			if reqs := c.llm.Requests(); len(reqs) != 2 || !reqs[1].Stream {
				t.Fatalf("model requests = %d (the answer streamed: %v)", len(reqs), len(reqs) == 2 && reqs[1].Stream)
			}

			c.llm.Reset()
			c.llm.Enqueue(toolCall("greeter", `{"name":"Ann"}`))
			texts, _ = answerChunks(c.s.workflowStream(t, cz{"workflow_id": id, "parameters": cz{"q": "greet Ann"}}))
			if strings.Join(texts, "") != "Hello Ann!" || len(c.llm.Requests()) != 1 {
				t.Fatalf("a direct tool streamed %q after %d model calls", texts, len(c.llm.Requests()))
			}
		})
	}
}
