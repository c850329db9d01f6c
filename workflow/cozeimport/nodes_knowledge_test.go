package cozeimport

import (
	"encoding/json"
	"errors"
	"os"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/pergola-ai/pergola/domain/errs"
)

// retriever is a Coze retriever node (id 7) over datasets, with query q
// and the given extra datasetParam entries.
func retriever(datasets, extra string) string {
	return `{"id":"7","type":"6","data":{"inputs":{"datasetParam":[{"name":"datasetList","input":{"type":"list",` +
		`"value":{"type":"literal","content":` + datasets + `}}}` + extra + `],` +
		`"inputParameters":[{"name":"Query","input":` + startRef("q", "string") + `}]},` +
		`"outputs":[{"type":"list","name":"outputList","schema":{"type":"object","schema":[{"type":"string","name":"output"}]}}]}}`
}

func literalParam(name, typ, content string) string {
	return `,{"name":"` + name + `","input":{"type":"` + typ + `","value":{"type":"literal","content":` + content + `}}}`
}

// TestKnowledgeNodes converts each knowledge node with mapped datasets.
func TestKnowledgeNodes(t *testing.T) {
	tests := []struct{ name, node, want string }{
		{"retriever with settings", retriever(`["7480093452068470793", 7480093452068438025]`,
			literalParam("topK", "integer", "3")+literalParam("minScore", "float", "0.4")+literalParam("strategy", "integer", "20")+
				literalParam("useRerank", "boolean", "true")+literalParam("useRewrite", "boolean", "false")),
			`{"id":"n7","type":"knowledge_retrieve","config":{"knowledge_ids":[5,6],"min_score":0.4,"rerank":true,"rewrite":false,"strategy":"full_text","top_k":3},` +
				`"inputs":{"query":{"type":"string","ref":{"node":"start","path":"q"}}}}`},
		{"writer with a custom chunk strategy", `{"id":"7","type":"27","data":{"inputs":{"inputParameters":[{"name":"knowledge","input":` + startRef("q", "string") + `}],` +
			`"datasetParam":[{"name":"datasetList","input":{"type":"list","value":{"type":"literal","content":["7519861718982361099"]}}}],` +
			`"strategyParam":{"parsingStrategy":{"parsingType":"accurate"},"chunkStrategy":{"chunkType":"custom","separator":"#","maxToken":500,"overlap":0.2}}}}}`,
			`{"id":"n7","type":"knowledge_write","config":{"chunking":{"max_tokens":500,"overlap":100,"separator":"#","type":"custom"},"knowledge_id":5},` +
				`"inputs":{"file":{"type":"string","ref":{"node":"start","path":"q"}}}}`},
		{"deleter", `{"id":"7","type":"60","data":{"inputs":{"inputParameters":[{"name":"documentID","input":` + startRef("q", "string") + `}],` +
			`"datasetParam":[{"name":"datasetList","input":{"type":"list","value":{"type":"literal","content":["7519861718982361099"]}}}]},"outputs":[{"name":"isSuccess","type":"boolean"}]}}`,
			`{"id":"n7","type":"knowledge_delete","config":{"knowledge_id":5},"inputs":{"document_id":{"type":"string","ref":{"node":"start","path":"q"}}}}`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, rep := converted(t, tt.node)
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
			if len(rep.NeedsConversion)+len(rep.Unsupported) != 0 {
				t.Errorf("report = %+v, want the node converted", rep)
			}
		})
	}
}

// TestUnmappedDatasets: without RequireKnowledgeMappings the Coze id is
// kept and the node flagged; with it the node is unsupported, naming the
// dataset and where to map it.
func TestUnmappedDatasets(t *testing.T) {
	node := retriever(`["111"]`, "")
	res, err := Convert(oneNode(node), Options{})
	if err != nil {
		t.Fatal(err)
	}
	if n := res.Report.NeedsConversion; len(n) != 1 || !strings.Contains(n[0].Reason, "dataset 111 is a Coze Studio dataset") {
		t.Fatalf("needs conversion = %+v", n)
	}
	res, err = Convert(oneNode(node), Options{RequireKnowledgeMappings: true, AllowPartial: true})
	if err != nil {
		t.Fatal(err)
	}
	want := "nodes[7] (type 6): data.inputs.datasetParam.datasetList: Coze dataset 111 is not mapped: map it to a Pergola knowledge base in mappings.knowledge"
	if got := res.Report.UnsupportedText(); got != want {
		t.Fatalf("unsupported = %q, want %q", got, want)
	}
	llm := llmWithKnowledge(`"knowledgeList":[{"id":"222","name":"k"}]`)
	res, err = Convert(oneNode(llm), Options{RequireKnowledgeMappings: true, AllowPartial: true})
	if err != nil {
		t.Fatal(err)
	}
	if got := res.Report.UnsupportedText(); !strings.Contains(got, "knowledgeFCParam.knowledgeList: Coze dataset 222 is not mapped") {
		t.Fatalf("unsupported = %q", got)
	}
}

func llmWithKnowledge(fc string) string {
	return `{"id":"7","type":"3","data":{"inputs":{"inputParameters":[{"name":"q","input":` + startRef("q", "string") + `}],` +
		`"llmParam":[{"name":"modelType","input":{"type":"integer","value":{"type":"literal","content":"1001"}}},` +
		`{"name":"prompt","input":{"type":"string","value":{"type":"literal","content":"{{q}}"}}}],` +
		`"fcParam":{"knowledgeFCParam":{` + fc + `}}},"outputs":[{"name":"output","type":"string"}]}}`
}

// TestLLMKnowledge maps knowledgeFCParam's list and global settings.
func TestLLMKnowledge(t *testing.T) {
	got, rep := converted(t, llmWithKnowledge(`"knowledgeList":[{"id":"7512369185624686592"}],"global_setting":{"top_k":4,"min_score":0.3,`+
		`"search_mode":1,"use_rerank":false,"use_rewrite":true,"no_recall_reply_mode":1,"no_recall_reply_customize_prompt":"Sorry, I don't know."}`))
	want := `{"id":"n7","type":"llm","config":{"knowledge":{"knowledge_ids":[5],"min_score":0.3,"no_recall_reply":"Sorry, I don't know.",` +
		`"rerank":false,"rewrite":true,"strategy":"hybrid","top_k":4},"model_id":"fake","prompt":"{{q}}"},` +
		`"inputs":{"q":{"type":"string","ref":{"node":"start","path":"q"}}},"outputs":[{"name":"output","type":"string"}]}`
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
	if len(rep.NeedsConversion) != 0 {
		t.Errorf("needs conversion = %+v", rep.NeedsConversion)
	}
}

// TestMalformedKnowledgeNodes fail naming the node and field.
func TestMalformedKnowledgeNodes(t *testing.T) {
	tests := []struct{ name, node, want string }{
		{"no dataset list", `{"id":"7","type":"60","data":{"inputs":{"datasetParam":[]}}}`,
			"nodes[7].data.inputs.datasetParam: names no datasetList"},
		{"empty dataset list", retriever(`[]`, ""), "nodes[7].data.inputs.datasetParam.datasetList: is empty"},
		{"dataset list not a list", retriever(`"x"`, ""), "nodes[7].data.inputs.datasetParam.datasetList: is not a list of dataset ids"},
		{"unknown search type", retriever(`["7480093452068470793"]`, literalParam("strategy", "integer", "3")),
			"nodes[7].data.inputs.datasetParam.strategy: must be 0 (semantic), 1 (hybrid) or 20 (full text); got 3"},
		{"retriever without Query", strings.Replace(retriever(`["7480093452068470793"]`, ""), `"name":"Query"`, `"name":"query"`, 1),
			"nodes[7].data.inputs.inputParameters: has no Query input"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := Convert(oneNode(tt.node), goldenOptions())
			if !errors.Is(err, errs.ErrInvalid) || !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("err = %v, want ErrInvalid naming %q", err, tt.want)
			}
		})
	}
}

// TestCozeKnowledgeCanvasOutputs: in Coze's own example the deleter reads
// the writer's documentId and the end node the deleter's isSuccess, which
// become document_id and success.
func TestCozeKnowledgeCanvasOutputs(t *testing.T) {
	data, err := os.ReadFile("testdata/coze_knowledge_delete.json")
	if err != nil {
		t.Fatal(err)
	}
	res, err := Convert(data, goldenOptions())
	if err != nil {
		t.Fatal(err)
	}
	b, _ := json.Marshal(res.Definition)
	for _, want := range []string{`"path":"success"`, `"path":"document_id"`, `"type":"knowledge_write"`, `"type":"knowledge_delete"`} {
		if !strings.Contains(string(b), want) {
			t.Errorf("definition lacks %s: %s", want, b)
		}
	}
}
