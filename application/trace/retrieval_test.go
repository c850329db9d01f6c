package trace

import (
	"context"
	"errors"
	"strings"
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
		{Kind: chat.StepRetrieval, ChatID: 9, Text: "code name?", Recalled: []knowledge.Recalled{hit}, Duration: time.Millisecond},
		{Kind: chat.StepToolCall, ChatID: 9, ToolName: "search_knowledge", ToolCallID: "c1", ToolOrigin: "knowledge"},
		{Kind: chat.StepRetrieval, ChatID: 9, Text: "robot", ToolCallID: "c1", Err: errors.New("embedding model down")},
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
	hits, _ := auto.Attributes[AttrHits].(string)
	if auto.Kind != KindRetrieve || auto.Attributes[AttrQuery] != "code name?" || auto.Attributes[AttrHitCount] != 1 ||
		!strings.Contains(hits, `"document":"garden.md"`) || !strings.Contains(hits, `"chunk_id":"7"`) || auto.DurationMS != 1 {
		t.Fatalf("automatic retrieval span = %+v", auto)
	}
	if len(tool.Children) != 1 {
		t.Fatalf("the tool's retrieval must nest under its call: %+v", tool)
	}
	failed := tool.Children[0]
	if failed.Status != StatusError || failed.Error != "embedding model down" || failed.Attributes[AttrQuery] != "robot" {
		t.Fatalf("failed retrieval span = %+v", failed)
	}
}
