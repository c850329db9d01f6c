package main

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/pergola-ai/pergola/infra/fakellm"
)

// czExtractingQuestion is a question node (type 18) extracting fields
// with Coze model modelType.
func czExtractingQuestion(id, question, modelType string, fields ...cz) cz {
	outs := append([]cz{czOut("USER_RESPONSE", "string")}, fields...)
	return czNode(id, "18", "Ask "+id, cz{"answer_type": "text", "extra_output": true, "question": question,
		"inputParameters": []cz{}, "llmParam": cz{"modelType": modelType, "responseFormat": 2, "systemPrompt": ""}}, outs...)
}

// TestCozeParallelQuestions: two question nodes extracting fields on
// parallel branches, each with its own model (Coze's parallel_interrupt
// canvas): each extraction reaches the model its node names, and each
// answer resumes the node that asked it, whichever branch asks first.
// stream_run and stream_resume.
func TestCozeParallelQuestions(t *testing.T) {
	for _, b := range backends() {
		t.Run(b.name, func(t *testing.T) {
			c := newChatSetup(t, b)
			c.s.call(t, "POST", "/api/admin/models", bootstrapToken, cz{"id": "other", "provider": "openai",
				"base_url": c.llm.BaseURL(), "api_key": "k", "model": "other-model"}).must(t, 201)
			who := czExtractingQuestion("107234", "what's your name and age?", "1001",
				cz{"name": "user_name", "type": "string", "required": true}, cz{"name": "user_age", "type": "integer", "required": true})
			where := czExtractingQuestion("157915", "what's your nationality?", "1002",
				cz{"name": "nationality", "type": "string", "required": true})
			end := czEnd(czParam("user_name", czRef("107234", "user_name", "string")), czParam("user_age", czRef("107234", "user_age", "integer")),
				czParam("nationality", czRef("157915", "nationality", "string")))
			canvas := czCanvas(t, []cz{czStart(czOut("input", "string")), who, where, end},
				czEdge("100001", "107234"), czEdge("100001", "157915"), czEdge("107234", "900001"), czEdge("157915", "900001"))
			r := c.s.call(t, "POST", "/api/workflows/import", bootstrapToken, cz{"workspace_id": c.ws, "name": "parallel", "canvas": canvas,
				"mappings": cz{"models": map[string]string{"1001": "fake", "1002": "other"}}}).must(t, 201)
			id := str(r.data["workflow"].(map[string]any), "id")
			c.s.call(t, "POST", "/api/workflows/"+id+"/publish", bootstrapToken, nil).must(t, 201)

			replies := map[string]string{"what's your name and age?": `{"fields": {"user_name": "Ann", "user_age": 41}}`,
				"what's your nationality?": `{"fields": {"nationality": "Irish"}}`}
			answers := map[string]string{"what's your name and age?": "Ann, 41", "what's your nationality?": "Irish"}
			models := map[string]string{"what's your name and age?": "fake", "what's your nationality?": "other-model"}
			c.llm.Reset()
			events := c.s.workflowStream(t, cz{"workflow_id": id, "parameters": cz{"input": "x"}})
			for range 2 {
				asked := askedQuestion(t, events)
				c.llm.Reset()
				c.llm.Enqueue(fakellm.Text(replies[asked]))
				events = c.answer(t, id, events, asked, answers[asked])
				reqs := c.llm.Requests()
				if len(reqs) != 1 || reqs[0].Model != models[asked] || !strings.Contains(lastMessage(reqs[0]), answers[asked]) {
					t.Fatalf("answering %q reached %d model calls: %+v", asked, len(reqs), reqs)
				}
			}
			want := map[string]any{"user_name": "Ann", "user_age": float64(41), "nationality": "Irish"}
			if got := streamedOutput(t, events); !cmp.Equal(got, want) {
				t.Fatalf("output (-want +got):\n%s", cmp.Diff(want, got))
			}
		})
	}
}

// askedQuestion is the question a stream stopped on.
func askedQuestion(t *testing.T, events []wfEvent) string {
	t.Helper()
	n := len(events)
	if n < 2 || events[n-2].name != "Interrupt" {
		t.Fatalf("the run did not ask: %v", events)
	}
	in, _ := events[n-2].data["interrupt_data"].(map[string]any)
	return str(in, "question")
}
