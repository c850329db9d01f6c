package knowledgestore

import (
	"math"

	"github.com/pergola-ai/pergola/domain/errs"
	"github.com/pergola-ai/pergola/domain/knowledge"
)

// CheckChunks validates a PutChunks batch before anything is written and
// returns, per knowledge base, the vector length its chunks carry (bases
// whose chunks carry no vector are absent). It returns an errs.Invalid
// error naming the field when an id is not positive, an id repeats, a
// vector holds NaN or infinity, or two chunks of one base have vectors of
// different lengths.
func CheckChunks(chunks []knowledge.Chunk) (map[int64]int, error) {
	dims := map[int64]int{}
	seen := make(map[int64]bool, len(chunks))
	for i := range chunks {
		c := &chunks[i]
		if err := checkIDs(c); err != nil {
			return nil, err
		}
		if seen[c.ID] {
			return nil, errs.Invalid("id", "chunk %d appears twice in one batch", c.ID)
		}
		seen[c.ID] = true
		if err := checkVector(c, dims); err != nil {
			return nil, err
		}
	}
	return dims, nil
}

func checkIDs(c *knowledge.Chunk) error {
	switch {
	case c.ID <= 0:
		return errs.Invalid("id", "a chunk id must be positive, got %d", c.ID)
	case c.WorkspaceID <= 0:
		return errs.Invalid("workspace_id", "chunk %d: must be positive", c.ID)
	case c.KnowledgeID <= 0:
		return errs.Invalid("knowledge_id", "chunk %d: must be positive", c.ID)
	case c.DocumentID <= 0:
		return errs.Invalid("document_id", "chunk %d: must be positive", c.ID)
	case c.Position < 0:
		return errs.Invalid("position", "chunk %d: must not be negative", c.ID)
	}
	return nil
}

func checkVector(c *knowledge.Chunk, dims map[int64]int) error {
	if len(c.Vector) == 0 {
		return nil
	}
	for _, f := range c.Vector {
		if math.IsNaN(float64(f)) || math.IsInf(float64(f), 0) {
			return errs.Invalid("vector", "chunk %d: holds NaN or infinity", c.ID)
		}
	}
	if d, ok := dims[c.KnowledgeID]; ok && d != len(c.Vector) {
		return DimsMismatch(c.ID, len(c.Vector), c.KnowledgeID, d)
	}
	dims[c.KnowledgeID] = len(c.Vector)
	return nil
}

// DimsMismatch is the error for a chunk whose vector length differs from
// the other chunks of its knowledge base.
func DimsMismatch(chunkID int64, got int, knowledgeID int64, want int) error {
	return errs.Invalid("vector", "chunk %d has %d dimensions but the chunks of knowledge base %d have %d; "+
		"embed it with the base's model or delete the base's chunks first", chunkID, got, knowledgeID, want)
}

// ChunkIDs returns the ids of chunks.
func ChunkIDs(chunks []knowledge.Chunk) []int64 {
	ids := make([]int64, len(chunks))
	for i := range chunks {
		ids[i] = chunks[i].ID
	}
	return ids
}

// EmptyScope reports whether a search over s can find nothing.
func EmptyScope(s knowledge.Scope, topK int) bool {
	return s.WorkspaceID <= 0 || len(s.KnowledgeIDs) == 0 || topK <= 0
}
