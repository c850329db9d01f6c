package trace

import (
	"context"
	"encoding/json"
	"errors"
	"testing"
	"time"

	"github.com/pergola-ai/pergola/application/chat"
	"github.com/pergola-ai/pergola/domain/knowledge"
)

func TestRetrievalSpans(t *testing.T) {
	rec := &memRecorder{}
	c := NewChats(rec, nil)
	c.now = clock()
	hit := knowledge.Recalled{Hit: knowledge.Hit{Score: 0.9, Chunk: knowledge.Chunk{ID: 7, KnowledgeID: 3, DocumentID: 4, Text: "Marigold"}},
		DocumentName: "garden.md"}
	steps := []chat.Step{
		{Kind: chat.StepTurnStart, ChatID: 9},
		{Kind: chat.StepRetrieval, ChatID: 9, Text: "code name?", Recalled: []knowledge.Recalled{hit}, KnowledgeIDs: []int64{3},
			Duration: time.Millisecond},
		{Kind: chat.StepToolCall, ChatID: 9, ToolName: "search_knowledge", ToolCallID: "c1", ToolOrigin: "knowledge"},
		{Kind: chat.StepRetrieval, ChatID: 9, Text: "robot", ToolCallID: "c1", KnowledgeIDs: []int64{3, 5},
			Err: errors.New("embedding model down")},
		{Kind: chat.StepToolResult, ChatID: 9, ToolName: "search_knowledge", ToolCallID: "c1", Text: "error"},
		{Kind: chat.StepTurnEnd, ChatID: 9, Text: "completed"},
	}
	for _, s := range steps {
		c.OnStep(context.Background(), s)
	}
	root := rec.traces[0].Root
	if len(root.Children) != 2 {
		t.Fatalf("root children = %+v", root.Children)
	}
	auto, tool := root.Children[0], root.Children[1]
	// The conventions' retrieval span: its operation, the knowledge base
	// as the data source, and documents with an id and a score.
	if auto.Name != "retrieval 3" || auto.Kind != KindRetrieve || auto.Attributes["gen_ai.operation.name"] != "retrieval" ||
		auto.Attributes["gen_ai.data_source.id"] != "3" || auto.Attributes["gen_ai.retrieval.query.text"] != "code name?" ||
		auto.Attributes[AttrHitCount] != 1 || auto.DurationMS != 1 {
		t.Fatalf("automatic retrieval span = %+v", auto)
	}
	hits, _ := auto.Attributes["gen_ai.retrieval.documents"].(string)
	var docs []map[string]any
	if err := json.Unmarshal([]byte(hits), &docs); err != nil || len(docs) != 1 || docs[0]["id"] != "7" || docs[0]["score"] != 0.9 ||
		docs[0]["document"] != "garden.md" {
		t.Fatalf("gen_ai.retrieval.documents = %s", hits)
	}
	if len(tool.Children) != 1 {
		t.Fatalf("the tool's retrieval must nest under its call: %+v", tool)
	}
	failed := tool.Children[0]
	_, oneSource := failed.Attributes[AttrDataSourceID]
	if failed.Name != "retrieval" || oneSource || failed.Status != StatusError || failed.Error != "embedding model down" ||
		failed.Attributes[AttrQuery] != "robot" {
		t.Fatalf("failed retrieval span = %+v", failed)
	}
}
