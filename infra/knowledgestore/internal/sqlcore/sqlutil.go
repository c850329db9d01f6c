package sqlcore

import (
	"context"
	"database/sql"
	"fmt"
	"strings"
)

// inList returns "(?, ?, ?)" for n values.
func inList(n int) string {
	return "(" + strings.TrimSuffix(strings.Repeat("?, ", n), ", ") + ")"
}

// int64Args returns ids as query arguments.
func int64Args(ids []int64) []any {
	out := make([]any, len(ids))
	for i, id := range ids {
		out[i] = id
	}
	return out
}

// writeAttempts is how often a write transaction that lost a deadlock is
// tried.
const writeAttempts = 4

// inTx runs fn in a write transaction, committed when fn returns nil, and
// again when it failed with a retryable error.
func (s *Store) inTx(ctx context.Context, what string, fn func(tx *sql.Tx) error) error {
	var err error
	for attempt := 1; attempt <= writeAttempts; attempt++ {
		err = s.tryTx(ctx, what, fn)
		if err == nil || s.cfg.Retryable == nil || !s.cfg.Retryable(err) {
			return err
		}
	}
	return err
}

func (s *Store) tryTx(ctx context.Context, what string, fn func(tx *sql.Tx) error) error {
	tx, err := s.db.BeginTx(ctx, s.cfg.WriteTx)
	if err != nil {
		return fmt.Errorf("%s: begin: %w", what, err)
	}
	if err := fn(tx); err != nil {
		_ = tx.Rollback()
		return fmt.Errorf("%s: %w", what, err)
	}
	if err := tx.Commit(); err != nil {
		return fmt.Errorf("%s: commit: %w", what, err)
	}
	return nil
}

// idBatch is how many ids one IN list carries.
const idBatch = 500

// batches splits ids into slices of at most idBatch.
func batches(ids []int64) [][]int64 {
	var out [][]int64
	for len(ids) > idBatch {
		out = append(out, ids[:idBatch])
		ids = ids[idBatch:]
	}
	if len(ids) > 0 {
		out = append(out, ids)
	}
	return out
}
