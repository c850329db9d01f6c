package knowledge

import (
	"time"

	"github.com/pergola-ai/pergola/domain/errs"
)

// Status is a document's state, numbered as Coze's document status.
type Status int

// The statuses a document goes through: Processing while the worker
// parses, chunks, embeds and indexes it, then Ready or Failed.
const (
	StatusProcessing Status = 0
	StatusReady      Status = 1
	StatusDisabled   Status = 2
	StatusFailed     Status = 9
)

// SourceKind says where a document's content comes from.
type SourceKind string

// The sources.
const (
	SourceFile SourceKind = "file" // an uploaded file, or base64 content stored as one
	SourceWeb  SourceKind = "web"  // a web page, fetched through the egress guard
	SourceText SourceKind = "text" // raw text given with the request
)

// UpdateRule refreshes a web document on a schedule (Coze's update_rule).
type UpdateRule struct {
	Auto          bool // Coze's update_type 1
	IntervalHours int  // Coze's update_interval
}

// NewUpdateRule reads Coze's update_rule: update_type 0 (refreshed only
// when asked) or 1 (refreshed every update_interval hours). Any other
// type is errs.ErrInvalid naming field+".update_type"; the interval is
// checked where the document is known.
func NewUpdateRule(field string, updateType, intervalHours int) (UpdateRule, error) {
	if updateType != 0 && updateType != 1 {
		return UpdateRule{}, errs.Invalid(field+".update_type",
			"must be 0 (refreshed only when asked) or 1 (refreshed every update_interval hours), not %d", updateType)
	}
	return UpdateRule{Auto: updateType == 1, IntervalHours: intervalHours}, nil
}

// Document is one source a knowledge base was given.
type Document struct {
	ID          int64
	WorkspaceID int64
	KnowledgeID int64
	CreatorID   int64
	Name        string
	Source      SourceKind
	FileID      int64  // SourceFile
	URL         string // SourceWeb
	Text        string // SourceText
	FileType    string // extension without the dot: pdf, docx, md, csv, ...
	Size        int64  // bytes of the source
	Strategy    ChunkStrategy
	// Columns describes a table document's columns (table knowledge):
	// which are indexed and embedded.
	Columns    []Column
	UpdateRule UpdateRule
	Status     Status
	// Reason says why indexing failed, in words a builder can act on.
	Reason string
	// Progress is 0-100 while processing; Chunks the number indexed.
	Progress int
	Chunks   int64
	// Generation grows each time the document is (re)indexed; a worker
	// writes only for the generation it claimed, so a stale worker after a
	// crash or a refresh can never mix its chunks into a newer index.
	Generation  int64
	StartedAt   *time.Time
	RefreshedAt *time.Time
	CreatedAt   time.Time
	UpdatedAt   time.Time
}

// Column is a column of table knowledge. Indexed columns are embedded and
// searched; the others come back with the row.
type Column struct {
	Name    string
	Indexed bool
}

// DocumentState is what a search needs of a document: which knowledge
// base holds it, whether it is ready, and its name.
type DocumentState struct {
	ID          int64
	KnowledgeID int64
	Status      Status
	Name        string
}
