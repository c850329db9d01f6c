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
// error says why the turn went on without knowledge. The span is the
// conventions' retrieval span: "retrieval {gen_ai.data_source.id}" when
// the recall searched one knowledge base, "retrieval" when several.
func (b *building) retrieval(s chat.Step, hits string, now time.Time) {
	sp := newSpan(OpRetrieval, KindRetrieve, now.Add(-s.Duration))
	sp.Attributes[AttrOperation] = OpRetrieval
	ids := make([]string, len(s.KnowledgeIDs))
	for i, id := range s.KnowledgeIDs {
		ids[i] = strconv.FormatInt(id, 10)
	}
	if len(ids) == 1 {
		sp.Name += " " + ids[0]
		sp.Attributes[AttrDataSourceID] = ids[0]
	}
	if len(ids) > 0 {
		sp.Attributes[AttrKnowledge] = ids
	}
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

// hitDoc is a recalled chunk as the trace keeps it: the conventions'
// retrieval document (id, score) and enough to cite it.
type hitDoc struct {
	ID          string  `json:"id"` // the chunk's id
	Score       float64 `json:"score"`
	KnowledgeID string  `json:"knowledge_id"`
	DocumentID  string  `json:"document_id"`
	Document    string  `json:"document"`
	Text        string  `json:"text"`
}

func encodeRecalled(hits []knowledge.Recalled) string {
	out := make([]hitDoc, len(hits))
	for i, h := range hits {
		c := h.Chunk
		out[i] = hitDoc{ID: strconv.FormatInt(c.ID, 10), Score: h.Score, KnowledgeID: strconv.FormatInt(c.KnowledgeID, 10),
			DocumentID: strconv.FormatInt(c.DocumentID, 10), Document: h.DocumentName, Text: c.Text}
	}
	b, _ := json.Marshal(out)
	return string(b)
}
