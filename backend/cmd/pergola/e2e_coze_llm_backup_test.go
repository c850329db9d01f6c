package main

import (
	"encoding/json"
	"slices"
	"testing"

	"github.com/pergola-ai/pergola/infra/fakellm"
)

// backupCanvas is an LLM node on Coze model 1001 that retries once on
// Coze model 2002, its backup model (settingOnError.ext.backupLLmParam).
func backupCanvas(t *testing.T) json.RawMessage {
	lit := func(v string) cz { return czLit("string", v) }
	llm := czNode("200", "3", "LLM", cz{
		"inputParameters": []cz{czParam("input", czRef("100001", "q", "string"))},
		"llmParam": []cz{czParam("modelType", lit("1001")), czParam("prompt", lit("{{input}}")),
			czParam("systemPrompt", lit("")), czParam("responseFormat", lit("0"))},
		"settingOnError": cz{"switch": true, "processType": 1, "retryTimes": 1, "timeoutMs": 60000,
			"ext": cz{"backupLLmParam": `{"modelType":2002,"modelName":"Spare","temperature":1}`}},
	}, czOut("output", "string"))
	return czCanvas(t, []cz{czStart(czOut("q", "string")), llm, czEnd(czParam("answer", czRef("200", "output", "string")))},
		czEdge("100001", "200"), czEdge("200", "900001"))
}

// TestCozeLLMBackupModel: an imported LLM node with retries and a backup
// model calls its model first and the backup model on the retry, as Coze
// does; when the first attempt succeeds the backup is not called. Run and
// stream_run, on SQLite and on MariaDB with Redis.
func TestCozeLLMBackupModel(t *testing.T) {
	for _, b := range backends() {
		t.Run(b.name, func(t *testing.T) {
			c := newChatSetup(t, b)
			c.s.call(t, "POST", "/api/admin/models", bootstrapToken, cz{"id": "spare", "provider": "openai",
				"base_url": c.llm.BaseURL(), "api_key": "k", "model": "spare-model"}).must(t, 201)
			r := c.s.call(t, "POST", "/api/workflows/import", bootstrapToken, cz{"workspace_id": c.ws, "name": "backup",
				"canvas": backupCanvas(t), "mappings": cz{"models": cz{"1001": "fake", "2002": "spare"}}}).must(t, 201)
			def := r.data["workflow"].(map[string]any)["definition"].(map[string]any)
			llm := def["nodes"].([]any)[1].(map[string]any)
			if cfg := llm["config"].(map[string]any); cfg["backup_model_id"] != "spare" || cfg["model_id"] != "fake" {
				t.Fatalf("converted llm node = %v", llm)
			}
			id := str(r.data["workflow"].(map[string]any), "id")
			c.s.call(t, "POST", "/api/workflows/"+id+"/publish", bootstrapToken, nil).must(t, 201)
			for _, streamed := range []bool{false, true} {
				c.llm.Reset()
				c.llm.Enqueue(fakellm.Fail(400, "overloaded"), fakellm.Text("from the spare"))
				body := cz{"workflow_id": id, "parameters": cz{"q": "hi"}}
				out := map[string]any{}
				if streamed {
					out = c.runStreamed(t, body)
				} else {
					out = decodeData(t, c.s.call(t, "POST", "/v1/workflow/run", bootstrapToken, body).must(t, 200))
				}
				if out["answer"] != "from the spare" || !slices.Equal(requestedModels(c.llm), []string{"fake", "spare-model"}) {
					t.Fatalf("streamed %v: output %v, models called %v; want the backup's answer after the main model failed",
						streamed, out, requestedModels(c.llm))
				}
			}
			c.llm.Reset()
			if out := c.runOutput(t, id, cz{"q": "hi"}); out["answer"] != "echo: hi" || !slices.Equal(requestedModels(c.llm), []string{"fake"}) {
				t.Fatalf("a first attempt that succeeds: %v, models %v", out, requestedModels(c.llm))
			}
		})
	}
}

// requestedModels lists the model names of the fake model's requests.
func requestedModels(llm *fakellm.Server) []string {
	var out []string
	for _, r := range llm.Requests() {
		out = append(out, r.Model)
	}
	return out
}
