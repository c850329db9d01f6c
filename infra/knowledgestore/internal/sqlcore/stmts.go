package sqlcore

import (
	"context"
	"database/sql"
	"sync"
)

// stmts keeps the statements of a search's reads prepared, so that a
// search does not parse its SQL again (on SQLite that was a third of a
// hits read). Their IN lists come in a few sizes (see paddedIn), which
// bounds how many there are.
type stmts struct {
	mu sync.Mutex
	m  map[string]*sql.Stmt
}

// query runs q, prepared once per Store (and by database/sql once per
// connection).
func (s *Store) query(ctx context.Context, q string, args ...any) (*sql.Rows, error) {
	s.stmts.mu.Lock()
	st, ok := s.stmts.m[q]
	s.stmts.mu.Unlock()
	if !ok {
		var err error
		if st, err = s.db.PrepareContext(ctx, q); err != nil {
			return nil, err
		}
		s.stmts.mu.Lock()
		if old, raced := s.stmts.m[q]; raced {
			_ = st.Close()
			st = old
		} else {
			if s.stmts.m == nil {
				s.stmts.m = map[string]*sql.Stmt{}
			}
			s.stmts.m[q] = st
		}
		s.stmts.mu.Unlock()
	}
	return st.QueryContext(ctx, args...)
}

// close closes the prepared statements.
func (s *stmts) close() {
	s.mu.Lock()
	defer s.mu.Unlock()
	for q, st := range s.m {
		_ = st.Close()
		delete(s.m, q)
	}
}

// paddedIn returns an IN list for ids whose length is the next power of
// two (at least 1), and the ids padded to it by repeating the last one,
// which an IN list ignores.
func paddedIn(ids []int64) (string, []any) {
	n := 1
	for n < len(ids) {
		n *= 2
	}
	args := make([]any, n)
	for i := range args {
		args[i] = ids[min(i, len(ids)-1)]
	}
	return inList(n), args
}
