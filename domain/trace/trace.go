// Package trace holds what is stored of a run trace: the span tree of a
// chat turn or workflow run, as JSON, under the chat id or execute id.
package trace

import (
	"context"
	"time"
)

// Record is a stored trace: Tree is the root span as JSON.
type Record struct {
	TraceID     int64
	WorkspaceID int64
	Kind        string
	CreatedAt   time.Time
	Tree        []byte
}

// Store keeps traces; *sqlstore.TraceStore implements it.
type Store interface {
	// SaveTraces stores records in one batch.
	SaveTraces(ctx context.Context, recs []Record) error
	// TraceRecords returns the records of trace id, oldest first (none
	// when unknown).
	TraceRecords(ctx context.Context, id int64) ([]Record, error)
}
