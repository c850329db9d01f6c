package workflow

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/pergola-ai/pergola/domain/errs"
)

// knowledgeDefinition is a valid workflow with every knowledge node; the
// cases below break one way each.
const knowledgeDefinition = `{
  "nodes": [
    {"id": "start", "type": "start", "outputs": [{"name": "q", "type": "string", "required": true}, {"name": "n", "type": "integer"}]},
    {"id": "w", "type": "knowledge_write", "config": {"knowledge_id": 5}, "inputs": {"file": {"ref": {"node": "start", "path": "q"}}}},
    {"id": "r", "type": "knowledge_retrieve", "config": {"knowledge_ids": [5]}, "inputs": {"query": {"ref": {"node": "start", "path": "q"}}}},
    {"id": "ask", "type": "llm", "config": {"model_id": "fake", "prompt": "{{q}}", "knowledge": {"knowledge_ids": [5]}}, "inputs": {"q": {"ref": {"node": "start", "path": "q"}}}},
    {"id": "d", "type": "knowledge_delete", "config": {"knowledge_id": 5}, "inputs": {"document_id": {"ref": {"node": "w", "path": "document_id"}}}},
    {"id": "end", "type": "end", "inputs": {"a": {"ref": {"node": "r", "path": "chunks.0.output"}}}}
  ],
  "edges": [{"from": "start", "to": "w"}, {"from": "w", "to": "r"}, {"from": "r", "to": "ask"}, {"from": "ask", "to": "d"}, {"from": "d", "to": "end"}]
}`

func TestValidateKnowledgeNodes(t *testing.T) {
	cases := []struct {
		name        string
		from, to    string
		field, text string
	}{
		{"empty knowledge list", `"knowledge_ids": [5]}, "inputs": {"query"`, `"knowledge_ids": []}, "inputs": {"query"`,
			"nodes[r].config.knowledge_ids", "is required: at least one knowledge base id"},
		{"missing knowledge list", `"config": {"knowledge_ids": [5]}, "inputs": {"query"`, `"config": {}, "inputs": {"query"`,
			"nodes[r].config.knowledge_ids", "is required"},
		{"id not digits", `"knowledge_ids": [5]}, "inputs": {"query"`, `"knowledge_ids": [5, "kb-7"]}, "inputs": {"query"`,
			"nodes[r].config.knowledge_ids[1]", `must be a knowledge base id (digits); got "kb-7"`},
		{"id listed twice", `"knowledge_ids": [5]}, "inputs": {"query"`, `"knowledge_ids": [5, "5"]}, "inputs": {"query"`,
			"nodes[r].config.knowledge_ids[1]", "knowledge base 5 is listed twice"},
		{"unknown strategy", `"knowledge_ids": [5]}, "inputs": {"query"`, `"knowledge_ids": [5], "strategy": "vector"}, "inputs": {"query"`,
			"nodes[r].config.strategy", `must be semantic, hybrid or full_text; got "vector"`},
		{"top_k too large", `"knowledge_ids": [5]}, "inputs": {"query"`, `"knowledge_ids": [5], "top_k": 51}, "inputs": {"query"`,
			"nodes[r].config.top_k", "must be between 0 (5) and 50"},
		{"min_score above 1", `"knowledge_ids": [5]}, "inputs": {"query"`, `"knowledge_ids": [5], "min_score": 1.5}, "inputs": {"query"`,
			"nodes[r].config.min_score", "must be between 0 and 1"},
		{"query missing", `"inputs": {"query": {"ref": {"node": "start", "path": "q"}}}`, `"inputs": {}`,
			"nodes[r].inputs.query", "is required"},
		{"query not text", `"inputs": {"query": {"ref": {"node": "start", "path": "q"}}}`, `"inputs": {"query": {"ref": {"node": "start", "path": "n"}}}`,
			"nodes[r].inputs.query", "string"},
		{"declared outputs", `"knowledge_ids": [5]}, "inputs": {"query": {"ref": {"node": "start", "path": "q"}}}`,
			`"knowledge_ids": [5]}, "inputs": {"query": {"ref": {"node": "start", "path": "q"}}}, "outputs": [{"name": "x", "type": "string"}]`,
			"nodes[r].outputs", "derives its outputs"},
		{"llm knowledge without bases", `"knowledge": {"knowledge_ids": [5]}`, `"knowledge": {"knowledge_ids": []}`,
			"nodes[ask].config.knowledge.knowledge_ids", "is required"},
		{"llm knowledge bad id", `"knowledge": {"knowledge_ids": [5]}`, `"knowledge": {"knowledge_ids": [-3]}`,
			"nodes[ask].config.knowledge.knowledge_ids[0]", "must be a knowledge base id"},
		{"writer without knowledge base", `"config": {"knowledge_id": 5}, "inputs": {"file"`, `"config": {}, "inputs": {"file"`,
			"nodes[w].config.knowledge_id", "is required"},
		{"writer file missing", `"inputs": {"file": {"ref": {"node": "start", "path": "q"}}}`, `"inputs": {}`,
			"nodes[w].inputs.file", "is required"},
		{"unknown chunking type", `"config": {"knowledge_id": 5}, "inputs": {"file"`, `"config": {"knowledge_id": 5, "chunking": {"type": "pages"}}, "inputs": {"file"`,
			"nodes[w].config.chunking.type", `must be auto or custom; got "pages"`},
		{"max_tokens out of range", `"config": {"knowledge_id": 5}, "inputs": {"file"`, `"config": {"knowledge_id": 5, "chunking": {"type": "custom", "max_tokens": 50}}, "inputs": {"file"`,
			"nodes[w].config.chunking.max_tokens", "must be between 100 and 5000"},
		{"overlap not below max_tokens", `"config": {"knowledge_id": 5}, "inputs": {"file"`, `"config": {"knowledge_id": 5, "chunking": {"type": "custom", "max_tokens": 200, "overlap": 200}}, "inputs": {"file"`,
			"nodes[w].config.chunking.overlap", "less than max_tokens (200)"},
		{"separator under auto", `"config": {"knowledge_id": 5}, "inputs": {"file"`, `"config": {"knowledge_id": 5, "chunking": {"separator": "#"}}, "inputs": {"file"`,
			"nodes[w].config.chunking", "are for type custom"},
		{"deleter knowledge id not digits", `"config": {"knowledge_id": 5}, "inputs": {"document_id"`, `"config": {"knowledge_id": "kb"}, "inputs": {"document_id"`,
			"nodes[d].config", "must be a numeric id"},
		{"deleter document missing", `"inputs": {"document_id": {"ref": {"node": "w", "path": "document_id"}}}`, `"inputs": {}`,
			"nodes[d].inputs.document_id", "is required"},
	}
	eng := New(Config{})
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			src := strings.Replace(knowledgeDefinition, tc.from, tc.to, 1)
			if src == knowledgeDefinition {
				t.Fatalf("the case changes nothing: %q not found", tc.from)
			}
			def, err := Parse([]byte(src))
			if err != nil {
				t.Fatalf("parse: %v", err)
			}
			err = eng.Validate(context.Background(), def, CompileOptions{})
			if !errors.Is(err, errs.ErrInvalid) {
				t.Fatalf("Validate = %v, want an invalid definition", err)
			}
			for _, p := range Problems(err) {
				if p.Field == tc.field && strings.Contains(p.Reason, tc.text) {
					return
				}
			}
			t.Errorf("no problem %s: …%s…; got:\n%s", tc.field, tc.text, describeProblems(err))
		})
	}
}

func TestValidateKnowledgeDefinition(t *testing.T) {
	def, err := Parse([]byte(knowledgeDefinition))
	if err != nil {
		t.Fatal(err)
	}
	if err := New(Config{}).Validate(context.Background(), def, CompileOptions{}); err != nil {
		t.Fatalf("the knowledge definition is invalid:\n%s", describeProblems(err))
	}
}

// TestKnowledgeNodesWithoutThePort runs each knowledge node in an engine
// without the Knowledge port: the node fails saying so, once (no retry).
func TestKnowledgeNodesWithoutThePort(t *testing.T) {
	cases := []struct{ name, node, want string }{
		{"retrieve", `{"id": "k", "type": "knowledge_retrieve", "config": {"knowledge_ids": [5]}, "inputs": {"query": {"value": "q"}}, "settings": {"retries": 2}}`, "node k failed: knowledge bases are not available in this process"},
		{"delete", `{"id": "k", "type": "knowledge_delete", "config": {"knowledge_id": 5}, "inputs": {"document_id": {"value": "7"}}}`, "node k failed: knowledge bases are not available in this process"},
		{"write", `{"id": "k", "type": "knowledge_write", "config": {"knowledge_id": 5}, "inputs": {"file": {"value": "https://x.example/a.txt"}}}`, "node k failed: knowledge bases are not available in this process"},
		{"llm", `{"id": "k", "type": "llm", "config": {"model_id": "fake", "prompt": "hi", "knowledge": {"knowledge_ids": [5]}}}`, "node k failed: knowledge bases are not available in this process"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			src := `{"nodes": [{"id": "start", "type": "start"}, ` + tc.node + `, {"id": "end", "type": "end"}],
				"edges": [{"from": "start", "to": "k"}, {"from": "k", "to": "end"}]}`
			def, err := Parse([]byte(src))
			if err != nil {
				t.Fatal(err)
			}
			models := &fakeModels{}
			eng := New(Config{Models: models, HTTP: &fakeHTTP{}})
			c, err := eng.Compile(context.Background(), tc.name, def, CompileOptions{})
			if err != nil {
				t.Fatalf("compile: %v", err)
			}
			_, err = eng.Run(context.Background(), c, RunInput{RunID: 1, Scope: Scope{WorkspaceID: 1}})
			if err == nil || err.Error() != tc.want {
				t.Fatalf("run error = %v, want %q", err, tc.want)
			}
			if len(models.calls) != 0 {
				t.Errorf("the model was called %d times; want none without knowledge", len(models.calls))
			}
		})
	}
}

// TestDeleteRefusesABadDocumentID checks the deleter's input before it
// reaches the port.
func TestDeleteRefusesABadDocumentID(t *testing.T) {
	src := `{"nodes": [{"id": "start", "type": "start"},
		{"id": "k", "type": "knowledge_delete", "config": {"knowledge_id": 5}, "inputs": {"document_id": {"value": "doc-7"}}},
		{"id": "end", "type": "end"}], "edges": [{"from": "start", "to": "k"}, {"from": "k", "to": "end"}]}`
	def, err := Parse([]byte(src))
	if err != nil {
		t.Fatal(err)
	}
	kb := newFakeKnowledge(map[string][]fakeDoc{"5": {{ID: 7, Name: "a.txt"}}})
	eng := New(Config{Knowledge: kb})
	c, err := eng.Compile(context.Background(), "del", def, CompileOptions{})
	if err != nil {
		t.Fatalf("compile: %v", err)
	}
	_, err = eng.Run(context.Background(), c, RunInput{RunID: 1, Scope: Scope{WorkspaceID: 1}})
	if want := `node k failed: document_id "doc-7" is not a document id`; err == nil || err.Error() != want {
		t.Fatalf("run error = %v, want %q", err, want)
	}
	if len(kb.bases["5"]) != 1 {
		t.Errorf("the document was deleted: %+v", kb.bases)
	}
}
