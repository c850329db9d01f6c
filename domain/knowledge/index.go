package knowledge

import (
	"context"

	"github.com/pergola-ai/pergola/domain/identity"
)

// Chunk is one piece of a document as it is indexed.
type Chunk struct {
	ID          int64
	WorkspaceID int64
	KnowledgeID int64
	DocumentID  int64
	// Position is the chunk's place in its document, from 0.
	Position int
	// Text is what is shown and searched. For table knowledge it is the
	// indexed columns as "name: value" lines.
	Text string
	// Headings is the heading path of a markdown chunk, outermost first.
	Headings []string
	// Row is a table knowledge row: every column's value.
	Row map[string]string
	// Vector is the embedding of Text; nil when listed without vectors.
	Vector []float32
}

// Hit is a chunk a search found, with its score: higher is better. For
// vector search the score is the cosine similarity (in -1..1), for full
// text the engine's relevance made positive (higher is better).
type Hit struct {
	Chunk Chunk
	Score float64
}

// Scope says which knowledge bases a search or a listing may touch; every
// Index method filters by it, so one workspace's query can never return
// another's chunk.
type Scope struct {
	WorkspaceID  int64
	KnowledgeIDs []int64
	// SkipDocuments are documents whose chunks a search leaves out: those
	// of the bases that are being indexed or failed, whose chunks are in
	// the index but must not be recalled.
	SkipDocuments []int64
	// Revisions, when set, are the bases' revisions the caller read with
	// Index.Revisions just before: the search takes them as current
	// instead of reading them again (a base absent holds no chunks). A
	// search may still answer from a newer revision.
	Revisions map[int64]int64
}

// Index keeps chunks with their vectors and full-text index: one
// implementation per engine, each passing the contract suite. Every
// method acts only inside the workspace it is given.
type Index interface {
	// PutChunks stores chunks (their IDs assigned by the caller),
	// replacing any with the same ID, atomically: all or none.
	PutChunks(ctx context.Context, chunks []Chunk) error
	// DeleteDocument removes every chunk of a document; nothing left of
	// it is not an error.
	DeleteDocument(ctx context.Context, workspaceID, knowledgeID, documentID int64) error
	// DeleteBase removes every chunk of a knowledge base.
	DeleteBase(ctx context.Context, workspaceID, knowledgeID int64) error
	// DeleteChunks removes chunks of a knowledge base by id.
	DeleteChunks(ctx context.Context, workspaceID, knowledgeID int64, ids []int64) error
	// GetChunk returns one chunk with its vector, or errs.ErrNotFound.
	GetChunk(ctx context.Context, workspaceID, knowledgeID, id int64) (*Chunk, error)
	// ListChunks returns one page of a document's chunks in position
	// order, without vectors, and the document's chunk count.
	ListChunks(ctx context.Context, workspaceID, knowledgeID, documentID int64, p identity.Page) ([]Chunk, int64, error)
	// SearchVector returns the topK chunks of the scope nearest to vector
	// by cosine similarity, best first.
	SearchVector(ctx context.Context, s Scope, vector []float32, topK int) ([]Hit, error)
	// SearchText returns the topK chunks of the scope that best match
	// query by full text (BM25 or the engine's equivalent), best first.
	// Chinese, Japanese and Korean text matches without spaces.
	SearchText(ctx context.Context, s Scope, query string, topK int) ([]Hit, error)

	// Revisions returns the revision of each of the workspace's knowledge
	// bases among knowledgeIDs that has one. A base's revision grows with
	// every write of its chunks and every Touch, in every process sharing
	// the index, so that anything cached about a base at a revision (its
	// vectors, the states of its documents) is valid while it is unchanged.
	Revisions(ctx context.Context, workspaceID int64, knowledgeIDs []int64) (map[int64]int64, error)
	// Touch grows a knowledge base's revision without changing its
	// chunks: the states of its documents changed (one became ready,
	// failed, processing again, was renamed or deleted).
	Touch(ctx context.Context, workspaceID, knowledgeID int64) error
}
