package trace

import (
	"encoding/json"
	"strconv"
	"time"

	"github.com/pergola-ai/pergola/application/chat"
	"github.com/pergola-ai/pergola/domain/knowledge"
)

// retrieval records a knowledge recall of a turn, which the runtime
// reports once it ran: under the search tool's span when the model asked
// for it, under the turn otherwise. A failed recall is an error span whose
// error says why the turn went on without knowledge.
func (b *building) retrieval(s chat.Step, hits string, now time.Time) {
	sp := newSpan("retrieval", KindRetrieve, now.Add(-s.Duration))
	sp.setText(AttrQuery, s.Text)
	sp.setText(AttrHits, hits)
	sp.Attributes[AttrHitCount] = len(s.Recalled)
	parent := b.trace.Root
	if t := b.tools[s.ToolCallID]; s.ToolCallID != "" && t != nil {
		parent = t
	}
	if b.add(parent, sp) {
		sp.finish(now, errText(s.Err))
	}
}

// hitDoc is a recalled chunk as the trace keeps it: enough to cite it.
type hitDoc struct {
	KnowledgeID string  `json:"knowledge_id"`
	DocumentID  string  `json:"document_id"`
	Document    string  `json:"document"`
	ChunkID     string  `json:"chunk_id"`
	Score       float64 `json:"score"`
	Text        string  `json:"text"`
}

func encodeRecalled(hits []knowledge.Recalled) string {
	out := make([]hitDoc, len(hits))
	for i, h := range hits {
		c := h.Chunk
		out[i] = hitDoc{KnowledgeID: strconv.FormatInt(c.KnowledgeID, 10), DocumentID: strconv.FormatInt(c.DocumentID, 10),
			Document: h.DocumentName, ChunkID: strconv.FormatInt(c.ID, 10), Score: h.Score, Text: c.Text}
	}
	b, _ := json.Marshal(out)
	return string(b)
}
