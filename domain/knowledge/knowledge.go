// Package knowledge holds knowledge bases (Coze's datasets): documents a
// builder adds, cut into chunks, embedded and indexed so bots and
// workflows can recall what the documents say. The knowledge base and its
// documents live in the platform's database (Store); the chunks with their
// vectors and full-text index live in an Index, of which there is one per
// engine (SQLite, MySQL/MariaDB, PostgreSQL with pgvector).
package knowledge

import (
	"context"
	"time"

	"github.com/pergola-ai/pergola/domain/identity"
)

// Format is what a knowledge base holds, as Coze's format_type.
type Format int

// The formats. Image knowledge keeps files referenced, not their pixels.
const (
	FormatText  Format = 0
	FormatTable Format = 1
	FormatImage Format = 2
)

// Base is a knowledge base of a workspace.
type Base struct {
	ID          int64
	WorkspaceID int64
	CreatorID   int64
	Name        string
	Description string
	IconFileID  int64
	Format      Format
	// EmbeddingModel is the id of the model (kind embedding) its chunks
	// are embedded with, and Dimensions the length of its vectors; both
	// are fixed at creation, since vectors of another model or length
	// cannot be compared with the stored ones.
	EmbeddingModel string
	Dimensions     int
	// ChunkStrategy is the default for documents added without one.
	ChunkStrategy ChunkStrategy
	CreatedAt     time.Time
	UpdatedAt     time.Time
}

// Counts sums up a knowledge base for lists (Coze's doc_count,
// slice_count, all_file_size and the per-status file lists).
type Counts struct {
	Documents  int64
	Chunks     int64
	Bytes      int64
	Processing []int64 // ids of documents still being indexed
	Failed     []int64
}

// ListFilter narrows a list of knowledge bases.
type ListFilter struct {
	Name   string  // substring of the name, ignoring case; "" for all
	Format *Format // nil for every format
}

// BaseStore keeps knowledge bases. GetBase returns errs.ErrNotFound for an
// unknown id; the other methods act inside the given workspace and answer
// errs.ErrNotFound for a knowledge base of another one.
type BaseStore interface {
	CreateBase(ctx context.Context, b *Base) error
	GetBase(ctx context.Context, id int64) (*Base, error)
	// BasesByID returns the knowledge bases among ids that exist in the
	// workspace, in no particular order: one read for a bot's bases.
	BasesByID(ctx context.Context, workspaceID int64, ids []int64) ([]Base, error)
	ListBases(ctx context.Context, workspaceID int64, f ListFilter, p identity.Page) ([]Base, int64, error)
	UpdateBase(ctx context.Context, workspaceID, id int64, fn func(*Base) error) (*Base, error)
	// DeleteBase removes the knowledge base and its documents' records;
	// the caller removes its chunks from the Index.
	DeleteBase(ctx context.Context, workspaceID, id int64) error
}
