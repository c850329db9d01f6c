package main

import (
	"strings"
	"testing"

	"github.com/pergola-ai/pergola/infra/fakellm"
)

// toolCall is a fake model reply calling one tool.
func toolCall(name, args string) fakellm.Reply {
	return fakellm.Reply{ToolCalls: []fakellm.ToolCall{{Type: "function", Function: fakellm.FunctionCall{Name: name, Arguments: args}}}}
}

// llmWithWorkflowSkills is a Coze canvas whose LLM node has the workflow
// skills 7001, 7002 and 7003.
func llmWithWorkflowSkills(t *testing.T) []byte {
	params := []cz{czParam("modelType", czLit("string", "1001")), czParam("prompt", czLit("string", "{{input}}")),
		czParam("responseFormat", czLit("string", "0"))}
	skills := []cz{{"workflow_id": "7001", "workflow_version": "v0.0.1"}, {"workflow_id": "7002"}, {"workflow_id": "7003"}}
	llm := czNode("200", "3", "Agent", cz{"inputParameters": []cz{czParam("input", czRef("100001", "q", "string"))},
		"llmParam": params, "fcParam": cz{"workflowFCParam": cz{"workflowList": skills}}}, czOut("output", "string"))
	return czCanvas(t, []cz{czStart(czOut("q", "string")), llm, czEnd(czParam("answer", czRef("200", "output", "string")))},
		czEdge("100001", "200"), czEdge("200", "900001"))
}

// importToolWorkflows imports the three tool workflows: weather returns
// variables, greeter returns text, asker asks a question.
func importToolWorkflows(t *testing.T, c *chatSetup) map[string]string {
	say := czNode("300", "15", "Forecast", cz{"method": "concat", "inputParameters": []cz{czParam("city", czRef("100001", "city", "string"))},
		"concatParams": []cz{czParam("concatResult", czLit("string", "sunny in {{city}}"))}}, czOut("output", "string"))
	weather := czCanvas(t, []cz{czStart(czOut("city", "string")), say, czEnd(czParam("forecast", czRef("300", "output", "string")))},
		czEdge("100001", "300"), czEdge("300", "900001"))
	greetEnd := czNode("900001", "2", "End", cz{"terminatePlan": "useAnswerContent", "content": czLit("string", "Hello {{name}}!"),
		"inputParameters": []cz{czParam("name", czRef("100001", "name", "string"))}})
	greeter := czCanvas(t, []cz{czStart(czOut("name", "string")), greetEnd}, czEdge("100001", "900001"))
	ask := czNode("400", "18", "Ask", cz{"answer_type": "text", "question": "Which {{topic}}?",
		"inputParameters": []cz{czParam("topic", czRef("100001", "topic", "string"))}}, czOut("USER_RESPONSE", "string"))
	asker := czCanvas(t, []cz{czStart(czOut("topic", "string")), ask, czEnd(czParam("choice", czRef("400", "USER_RESPONSE", "string")))},
		czEdge("100001", "400"), czEdge("400", "900001"))
	return map[string]string{"7001": c.importPublished(t, "weather", weather, nil),
		"7002": c.importPublished(t, "greeter", greeter, nil), "7003": c.importPublished(t, "asker", asker, nil)}
}

// TestCozeLLMNodeWorkflowTools: an imported LLM node calls imported
// workflows as tools, as a bot does: variables go back to the model, a
// text end returns directly, a question inside the tool interrupts the run
// and the resumed run goes on inside the tool, then with the model.
func TestCozeLLMNodeWorkflowTools(t *testing.T) {
	for _, b := range backends() {
		t.Run(b.name, func(t *testing.T) {
			c := newChatSetup(t, b)
			id := c.importPublished(t, "agent", llmWithWorkflowSkills(t), importToolWorkflows(t, c))

			c.llm.Reset()
			c.llm.Enqueue(toolCall("weather", `{"city":"Oslo"}`), fakellm.Text("It is sunny in Oslo."))
			if out := c.runOutput(t, id, map[string]any{"q": "weather in Oslo?"}); out["answer"] != "It is sunny in Oslo." {
				t.Fatalf("answer = %v", out)
			}
			reqs := c.llm.Requests()
			if len(reqs) != 2 || len(reqs[0].Tools) != 3 || lastMessage(reqs[1]) != `{"forecast":"sunny in Oslo"}` {
				t.Fatalf("model requests = %d, tools %v, tool result %q", len(reqs), reqs[0].Tools, lastMessage(reqs[len(reqs)-1]))
			}

			c.llm.Reset()
			c.llm.Enqueue(toolCall("greeter", `{"name":"Ann"}`))
			if out := c.runOutput(t, id, map[string]any{"q": "greet Ann"}); out["answer"] != "Hello Ann!" || len(c.llm.Requests()) != 1 {
				t.Fatalf("a text end returns directly: %v after %d model calls", out, len(c.llm.Requests()))
			}

			c.llm.Reset()
			c.llm.Enqueue(toolCall("asker", `{"topic":"color"}`), fakellm.Text("You chose blue."))
			events := c.s.workflowStream(t, map[string]any{"workflow_id": id, "parameters": map[string]any{"q": "pick a color"}})
			events = c.answer(t, id, events, "Which color?", "blue")
			if out := streamedOutput(t, events); out["answer"] != "You chose blue." {
				t.Fatalf("resumed answer = %v", out)
			}
			if reqs := c.llm.Requests(); len(reqs) != 2 || !strings.Contains(lastMessage(reqs[1]), `"choice":"blue"`) {
				t.Fatalf("after the resume the model got %d requests, last %q", len(reqs), lastMessage(reqs[len(reqs)-1]))
			}
		})
	}
}

// lastMessage is the content of a request's last message.
func lastMessage(r fakellm.Request) string {
	if len(r.Messages) == 0 {
		return ""
	}
	return r.Messages[len(r.Messages)-1].Content
}
