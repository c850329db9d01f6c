//go:build kbapp

// Built with -tags kbapp until the knowledge service (application/knowledge)
// is wired into the server; then the tag goes.

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

// knowledgeCanvas is a Coze canvas with the three knowledge nodes: the
// writer adds the file, the retriever finds what it says, the deleter
// removes it; the end node returns all three.
func knowledgeCanvas(t *testing.T) json.RawMessage {
	datasets := czParam("datasetList", cz{"type": "list", "schema": cz{"type": "string"},
		"value": cz{"type": "literal", "content": []string{cozeDataset}}})
	writer := czNode("191672", "27", "Write", cz{"inputParameters": []cz{czParam("knowledge", czRef("100001", "file", "string"))},
		"datasetParam": []cz{datasets}, "strategyParam": cz{"parsingStrategy": cz{"parsingType": "fast"}, "chunkStrategy": cz{"chunkType": "default"}}},
		czOut("documentId", "string"), czOut("fileName", "string"), czOut("fileUrl", "string"))
	retriever := czNode("102426", "6", "Find", cz{"inputParameters": []cz{czParam("Query", czRef("100001", "question", "string"))},
		"datasetParam": []cz{datasets, czParam("topK", czLit("integer", 3)), czParam("strategy", czLit("integer", 1))}},
		cz{"type": "list", "name": "outputList", "schema": cz{"type": "object", "schema": []cz{czOut("output", "string")}}})
	deleter := czNode("196335", "60", "Delete", cz{"inputParameters": []cz{czParam("documentID", czRef("191672", "documentId", "string"))},
		"datasetParam": []cz{datasets}}, czOut("isSuccess", "boolean"))
	end := czEnd(czParam("doc", czRef("191672", "documentId", "string")), czParam("name", czRef("191672", "fileName", "string")),
		czParam("found", czRef("102426", "outputList", "list")), czParam("deleted", czRef("196335", "isSuccess", "boolean")))
	return czCanvas(t, []cz{czStart(czOut("file", "string"), czOut("question", "string")), writer, retriever, deleter, end},
		czEdge("100001", "191672"), czEdge("191672", "102426"), czEdge("102426", "196335"), czEdge("196335", "900001"))
}

// TestKnowledgeNodesInACozeWorkflow imports a Coze canvas with a writer,
// a retriever and a deleter, its dataset mapped to a knowledge base, and
// runs it through /v1/workflow/run and /v1/workflow/stream_run: the
// writer adds the file served on 127.0.0.1, the retriever recalls its
// sentence, the deleter removes it, so the knowledge base is empty after
// each run. On SQLite and on MariaDB with Redis.
func TestKnowledgeNodesInACozeWorkflow(t *testing.T) {
	files := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/plain")
		_, _ = w.Write([]byte("The garden robot is called Bramble.\n\nIt waters the tomatoes at dawn.\n"))
	}))
	t.Cleanup(files.Close)
	for _, b := range backends() {
		t.Run(b.name, func(t *testing.T) {
			c := newChatSetup(t, withEnv(b, map[string]string{"PERGOLA_EGRESS_ALLOW": "127.0.0.1"}))
			kb := c.knowledgeBase(t)
			r := c.s.call(t, "POST", "/api/workflows/import", bootstrapToken, cz{"workspace_id": c.ws, "name": "kb_nodes",
				"canvas": knowledgeCanvas(t), "mappings": cz{"knowledge": map[string]string{cozeDataset: kb}}}).must(t, 201)
			if n := len(r.data["report"].(map[string]any)["unsupported"].([]any)); n != 0 {
				t.Fatalf("report = %v", r.data["report"])
			}
			id := str(r.data["workflow"].(map[string]any), "id")
			c.s.call(t, "POST", "/api/workflows/"+id+"/publish", bootstrapToken, nil).must(t, 201)
			params := map[string]any{"file": files.URL + "/f?x-wf-file_name=garden.txt", "question": "What is the garden robot called?"}

			out := c.runOutput(t, id, params)
			checkKnowledgeRun(t, out)
			c.expectNoDocuments(t, kb)

			events := c.s.workflowStream(t, map[string]any{"workflow_id": id, "parameters": params})
			last := events[len(events)-1]
			text, _ := messageText(events, "end")
			if last.name != "Done" || !strings.Contains(text, "Bramble") {
				t.Fatalf("stream ends with %s; the end node said %q", last.name, text)
			}
			c.expectNoDocuments(t, kb)
		})
	}
}

func checkKnowledgeRun(t *testing.T, out map[string]any) {
	t.Helper()
	found, _ := out["found"].([]any)
	if len(found) == 0 || out["deleted"] != true || out["name"] != "garden.txt" || out["doc"] == "" {
		t.Fatalf("output = %v", out)
	}
	first, _ := found[0].(map[string]any)
	if text, _ := first["output"].(string); !strings.Contains(text, "Bramble") {
		t.Fatalf("the first chunk found is %v, want the sentence naming the robot", first)
	}
}

// knowledgeBase registers the fake embedding model and creates a text
// knowledge base with Coze's datasets API; it returns the id.
func (c *chatSetup) knowledgeBase(t *testing.T) string {
	t.Helper()
	chat := c.s.call(t, "GET", "/api/admin/models/fake", bootstrapToken, nil).must(t, 200)
	c.s.call(t, "POST", "/api/admin/models", bootstrapToken, map[string]any{"id": "embed", "kind": "embedding",
		"provider": "openai", "base_url": str(chat.data, "base_url"), "api_key": "k", "model": "fake-embedding", "dimensions": 64}).must(t, 201)
	r := c.s.call(t, "POST", "/v1/datasets", bootstrapToken, map[string]any{"name": "garden", "space_id": c.ws, "format_type": 0}).must(t, 200)
	return str(r.data, "dataset_id")
}

// expectNoDocuments checks the knowledge base holds no document.
func (c *chatSetup) expectNoDocuments(t *testing.T, kb string) {
	t.Helper()
	r := c.s.call(t, "POST", "/open_api/knowledge/document/list", bootstrapToken, map[string]any{"dataset_id": kb}).must(t, 200)
	if docs, _ := r.raw["document_infos"].([]any); len(docs) != 0 {
		t.Fatalf("the knowledge base still holds %v", docs)
	}
}
