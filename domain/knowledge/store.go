package knowledge

import (
	"context"
	"time"

	"github.com/pergola-ai/pergola/domain/identity"
)

// QueuedOwner holds the lease of a document waiting on the queue: any
// worker may claim it at once, and if nobody does before the lease ends
// the reaper queues it again (a message lost with a stopped process's
// in-memory queue is thereby never lost for good).
const QueuedOwner = "queued"

// Outcome is how an indexing attempt ended.
type Outcome struct {
	Status Status // StatusReady or StatusFailed
	Reason string // why it failed, for a person to act on
	Chunks int64  // chunks indexed (Ready)
}

// Claimed is a document a worker holds for indexing: the document with
// its new generation, and how many times it was claimed since it was last
// (re)queued by a person, this claim included.
type Claimed struct {
	Document
	Attempts int
}

// DocumentStore keeps the documents of knowledge bases and the state of
// their indexing. GetDocument returns errs.ErrNotFound for an unknown id;
// the methods taking a workspace act only inside it and answer
// errs.ErrNotFound for a document of another one.
//
// Indexing is leased: a worker claims a processing document (its
// generation grows by one), reports progress and finishes it only for the
// generation it claimed, so a worker that lost its lease (its process
// stalled or died and another took over) can never overwrite a newer
// attempt: its writes fail with errs.ErrConflict.
type DocumentStore interface {
	// CreateDocuments stores new documents (ids set by the caller), all
	// or none, leased to QueuedOwner until queuedUntil. It fails with
	// errs.ErrInvalid (field "documents") when the knowledge base would
	// then hold more than maxDocs documents.
	CreateDocuments(ctx context.Context, docs []*Document, maxDocs int, queuedUntil time.Time) error
	GetDocument(ctx context.Context, id int64) (*Document, error)
	// ListDocuments returns one page of a knowledge base's documents,
	// newest first, and their count.
	ListDocuments(ctx context.Context, workspaceID, knowledgeID int64, p identity.Page) ([]Document, int64, error)
	// DocumentsByID returns the documents among ids that exist in the
	// workspace (of any knowledge base), in no particular order, without
	// their text (Text is empty).
	DocumentsByID(ctx context.Context, workspaceID int64, ids []int64) ([]Document, error)
	// DocumentStates returns the id, knowledge base, status and name of
	// every document of the workspace's knowledge bases among knowledgeIDs,
	// read without the rest of their rows: a search shows only the chunks
	// of ready documents, with their names.
	DocumentStates(ctx context.Context, workspaceID int64, knowledgeIDs []int64) ([]DocumentState, error)
	// UpdateDocument changes a document's name, update rule or chunk
	// count through fn, in one transaction.
	UpdateDocument(ctx context.Context, workspaceID, id int64, fn func(*Document) error) (*Document, error)
	// DeleteDocuments removes documents of a knowledge base; ids that do
	// not exist are ignored.
	DeleteDocuments(ctx context.Context, workspaceID, knowledgeID int64, ids []int64) error
	// CountBases sums up knowledge bases of a workspace; a base without
	// documents is absent from the map.
	CountBases(ctx context.Context, workspaceID int64, ids []int64) (map[int64]Counts, error)

	// Requeue makes a document processing again from the start (a
	// refresh, a retry): progress 0, no reason, no attempts, leased to
	// QueuedOwner until until. It fails with errs.ErrConflict while the
	// document is being indexed.
	Requeue(ctx context.Context, workspaceID, id int64, now, until time.Time) (*Document, error)
	// Claim takes a processing document for owner until until when it is
	// queued or its lease has expired, bumping its generation and its
	// attempts and setting StartedAt. A document that is not processing,
	// or is held by another live lease, fails with errs.ErrConflict.
	Claim(ctx context.Context, id int64, owner string, now, until time.Time) (*Claimed, error)
	// Progress records percent (0-100) and the chunks done so far (-1
	// keeps either), and extends the lease to until, for the claimed
	// generation of a processing document only (errs.ErrConflict
	// otherwise, errs.ErrNotFound when it was deleted).
	Progress(ctx context.Context, id, generation int64, percent int, done int64, until time.Time) error
	// Finish ends an attempt with its outcome for the claimed generation
	// of a processing document only (errs.ErrConflict otherwise,
	// errs.ErrNotFound when it was deleted), frees the lease and sets
	// RefreshedAt to now.
	Finish(ctx context.Context, id, generation int64, o Outcome, now time.Time) error
	// Expired lists processing documents whose lease ended before now,
	// at most limit, oldest first: the reaper queues them again.
	Expired(ctx context.Context, now time.Time, limit int) ([]Claimed, error)
	// Release hands an expired lease back to the queue (QueuedOwner until
	// until) if it is still expired at now and still of generation; it
	// fails with errs.ErrConflict when another process got there first.
	Release(ctx context.Context, id, generation int64, now, until time.Time) error
	// DueRefreshes lists web documents with an automatic update rule
	// whose interval has passed since they were last refreshed, and that
	// are not processing, at most limit.
	DueRefreshes(ctx context.Context, now time.Time, limit int) ([]Document, error)
}
