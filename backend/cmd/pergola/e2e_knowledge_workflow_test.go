package main

import (
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
)

// cozeDataset is the Coze dataset id the test canvas names; the import
// maps it to the test's knowledge base.
const cozeDataset = "7480093452068470793"

// knowledgeCanvas is a Coze canvas with the three knowledge nodes and an
// LLM node with knowledge: the writer adds the file, the retriever finds
// what it says, the LLM node is given it, the deleter removes it; the end
// node returns what each did.
func knowledgeCanvas(t *testing.T) json.RawMessage {
	datasets := czParam("datasetList", cz{"type": "list", "schema": cz{"type": "string"},
		"value": cz{"type": "literal", "content": []string{cozeDataset}}})
	writer := czNode("191672", "27", "Write", cz{"inputParameters": []cz{czParam("knowledge", czRef("100001", "file", "string"))},
		"datasetParam": []cz{datasets}, "strategyParam": cz{"parsingStrategy": cz{"parsingType": "fast"}, "chunkStrategy": cz{"chunkType": "default"}}},
		czOut("documentId", "string"), czOut("fileName", "string"), czOut("fileUrl", "string"))
	retriever := czNode("102426", "6", "Find", cz{"inputParameters": []cz{czParam("Query", czRef("100001", "question", "string"))},
		"datasetParam": []cz{datasets, czParam("topK", czLit("integer", 3)), czParam("strategy", czLit("integer", 1))}},
		cz{"type": "list", "name": "outputList", "schema": cz{"type": "object", "schema": []cz{czOut("output", "string")}}})
	llm := czNode("132728", "3", "Ask", cz{"inputParameters": []cz{czParam("input", czRef("100001", "question", "string"))},
		"llmParam": []cz{czParam("modelType", czLit("string", "1001")), czParam("prompt", czLit("string", "{{input}}"))},
		"fcParam": cz{"knowledgeFCParam": cz{"knowledgeList": []cz{{"id": cozeDataset, "name": "garden"}},
			"global_setting": cz{"top_k": 1, "search_mode": 0}}}}, czOut("output", "string"))
	deleter := czNode("196335", "60", "Delete", cz{"inputParameters": []cz{czParam("documentID", czRef("191672", "documentId", "string"))},
		"datasetParam": []cz{datasets}}, czOut("isSuccess", "boolean"))
	end := czEnd(czParam("doc", czRef("191672", "documentId", "string")), czParam("name", czRef("191672", "fileName", "string")),
		czParam("found", czRef("102426", "outputList", "list")), czParam("answer", czRef("132728", "output", "string")),
		czParam("deleted", czRef("196335", "isSuccess", "boolean")))
	return czCanvas(t, []cz{czStart(czOut("file", "string"), czOut("question", "string")), writer, retriever, llm, deleter, end},
		czEdge("100001", "191672"), czEdge("191672", "102426"), czEdge("102426", "132728"), czEdge("132728", "196335"), czEdge("196335", "900001"))
}

// TestKnowledgeNodesInACozeWorkflow imports a Coze canvas with a writer,
// a retriever, an LLM node with knowledge and a deleter, its dataset
// mapped to a knowledge base, and runs it through /v1/workflow/run and
// /v1/workflow/stream_run: the writer adds the file served on 127.0.0.1,
// the retriever recalls its sentence, the fake model (which echoes)
// shows it was quoted in the LLM node's prompt, the deleter removes the
// document, so the knowledge base is empty after each run. On SQLite and
// on MariaDB with Redis.
func TestKnowledgeNodesInACozeWorkflow(t *testing.T) {
	files := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/plain")
		_, _ = w.Write([]byte("The garden robot is called Bramble.\n\nIt waters the tomatoes at dawn.\n"))
	}))
	t.Cleanup(files.Close)
	for _, b := range backends() {
		t.Run(b.name, func(t *testing.T) {
			k := newKBSetup(t, b, map[string]string{"PERGOLA_EGRESS_ALLOW": "127.0.0.1"})
			kb := k.base(t, "garden", 0)
			k.s.call(t, "POST", "/api/admin/models", bootstrapToken, map[string]any{"id": "fake", "provider": "openai",
				"base_url": k.gate.url, "api_key": "k", "model": "fake"}).must(t, 201)
			r := k.s.call(t, "POST", "/api/workflows/import", bootstrapToken, cz{"workspace_id": k.ws, "name": "kb_nodes",
				"canvas": knowledgeCanvas(t), "mappings": cz{"models": map[string]string{"1001": "fake"},
					"knowledge": map[string]string{cozeDataset: kb}}}).must(t, 201)
			if n := len(r.data["report"].(map[string]any)["unsupported"].([]any)); n != 0 {
				t.Fatalf("report = %v", r.data["report"])
			}
			id := str(r.data["workflow"].(map[string]any), "id")
			k.s.call(t, "POST", "/api/workflows/"+id+"/publish", bootstrapToken, nil).must(t, 201)
			params := map[string]any{"file": files.URL + "/f?x-wf-file_name=garden.txt", "question": "What is the garden robot called?"}

			run := k.s.call(t, "POST", "/v1/workflow/run", bootstrapToken, map[string]any{"workflow_id": id, "parameters": params}).must(t, 200)
			var out map[string]any
			if err := json.Unmarshal([]byte(str(run.raw, "data")), &out); err != nil {
				t.Fatalf("data = %v is not a JSON string of an object", run.raw["data"])
			}
			checkKnowledgeRun(t, out)
			k.expectNoDocuments(t, kb)

			events := k.s.workflowStream(t, map[string]any{"workflow_id": id, "parameters": params})
			last := events[len(events)-1]
			text, _ := messageText(events, "end")
			if last.name != "Done" || !strings.Contains(text, "Bramble") {
				t.Fatalf("stream ends with %s; the end node said %q", last.name, text)
			}
			hist := k.s.runHistory(t, id, str(last.data, "execute_id"))
			for _, node := range []string{"n191672", "n102426", "n132728", "n196335"} {
				if st := nodeStatuses(t, hist)[node]; st != "success" {
					t.Errorf("node %s of the streamed run: %q, want success (history %v)", node, st, nodeStatuses(t, hist))
				}
			}
			k.expectNoDocuments(t, kb)
		})
	}
}

func checkKnowledgeRun(t *testing.T, out map[string]any) {
	t.Helper()
	found, _ := out["found"].([]any)
	if len(found) == 0 || out["deleted"] != true || out["name"] != "garden.txt" || out["doc"] == "" {
		t.Fatalf("output = %v", out)
	}
	if answer, _ := out["answer"].(string); !strings.Contains(answer, "<references>") || !strings.Contains(answer, "Bramble") {
		t.Fatalf("the LLM node was given %q, want the recalled chunk quoted in its prompt", answer)
	}
	first, _ := found[0].(map[string]any)
	if text, _ := first["output"].(string); !strings.Contains(text, "Bramble") {
		t.Fatalf("the first chunk found is %v, want the sentence naming the robot", first)
	}
}

// expectNoDocuments checks the knowledge base holds no document.
func (k *kbSetup) expectNoDocuments(t *testing.T, kb string) {
	t.Helper()
	r := k.s.call(t, "GET", "/api/knowledge/"+kb+"/documents", bootstrapToken, nil).must(t, 200)
	if docs := items(t, r.data, "items"); len(docs) != 0 {
		t.Fatalf("the knowledge base still holds %v", docs)
	}
}
