package main

import (
	"slices"
	"strings"
	"testing"
)

// TestImportKnowledgeCanvas imports Coze Studio's own knowledge example
// (a writer and a retriever over two datasets): unmapped datasets refuse
// the import naming the node and dataset, allow_partial keeps the draft
// with the unmapped node as a placeholder, and mapped datasets import the
// nodes as knowledge nodes of those knowledge bases.
func TestImportKnowledgeCanvas(t *testing.T) {
	c := newChatSetup(t, backends()[0])
	canvas := cozeCanvas(t, "coze_knowledge")
	body := map[string]any{"workspace_id": c.ws, "name": "kb", "canvas": string(canvas),
		"mappings": map[string]any{"knowledge": map[string]string{"7480093452068470793": "11"}}}
	r := c.s.call(t, "POST", "/api/workflows/import", bootstrapToken, body)
	r.fails(t, 400, 4000, "nodes[102426] (type 6): data.inputs.datasetParam.datasetList: Coze dataset 7480093452068438025 is not mapped")

	body["allow_partial"] = true
	r = c.s.call(t, "POST", "/api/workflows/import", bootstrapToken, body).must(t, 201)
	if got := reportIDs(r.data["report"].(map[string]any), "unsupported"); !slices.Equal(got, []string{"102426"}) {
		t.Fatalf("unsupported = %v, want the retriever", got)
	}

	delete(body, "allow_partial")
	body["mappings"] = map[string]any{"knowledge": map[string]string{"7480093452068470793": "11", "7480093452068438025": "12"}}
	r = c.s.call(t, "POST", "/api/workflows/import", bootstrapToken, body).must(t, 201)
	id := str(r.data["workflow"].(map[string]any), "id")
	wf := c.s.call(t, "GET", "/api/workflows/"+id, bootstrapToken, nil).must(t, 200)
	def := string(mustJSON(wf.data["definition"]))
	for _, want := range []string{`"type":"knowledge_write"`, `"knowledge_id":11`, `"type":"knowledge_retrieve"`, `"knowledge_ids":[11,12]`} {
		if !strings.Contains(def, want) {
			t.Errorf("the imported definition lacks %s: %s", want, def)
		}
	}
}
