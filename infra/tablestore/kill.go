package tablestore

import (
	"context"
	"database/sql"
	"database/sql/driver"
	"strconv"
	"time"

	"github.com/pergola-ai/pergola/domain/table"
	"github.com/pergola-ai/pergola/infra/sqlguard"
)

// killTimeout bounds the KILL sent for a statement past its time.
const killTimeout = 5 * time.Second

// runOnConn runs a statement on a connection of its own. On MySQL, when
// ctx ends first, the driver only closes its socket and the server goes
// on running the statement; so the statement is killed by its connection
// id from a second connection, and its connection is discarded, never
// returned to the pool.
func (s *Store) runOnConn(ctx context.Context, st *sqlguard.Statement, text string) (*table.Result, error) {
	if s.dialect != sqlguard.MySQL {
		return s.runOn(ctx, s.db, st, text)
	}
	conn, err := s.db.Conn(ctx)
	if err != nil {
		return nil, err
	}
	var id int64
	if err := conn.QueryRowContext(ctx, "SELECT CONNECTION_ID()").Scan(&id); err != nil {
		_ = conn.Close()
		return nil, err
	}
	res, err := s.runOn(ctx, conn, st, text)
	if err != nil && ctx.Err() != nil {
		s.kill(id)
		_ = conn.Raw(func(any) error { return driver.ErrBadConn }) // discards the connection
	}
	_ = conn.Close()
	return res, err
}

// kill stops what connection id runs; the rows' user may kill its own.
func (s *Store) kill(id int64) {
	ctx, cancel := context.WithTimeout(context.Background(), killTimeout)
	defer cancel()
	if _, err := s.db.ExecContext(ctx, "KILL QUERY "+strconv.FormatInt(id, 10)); err != nil {
		s.log.Error("tablestore: kill a statement past its time", "connection", id, "err", err)
	}
}

// querier is a pool or one connection of it.
type querier interface {
	QueryContext(ctx context.Context, query string, args ...any) (*sql.Rows, error)
	ExecContext(ctx context.Context, query string, args ...any) (sql.Result, error)
}

func (s *Store) runOn(ctx context.Context, q querier, st *sqlguard.Statement, text string) (*table.Result, error) {
	if st.Kind == sqlguard.Select {
		return s.query(ctx, q, st, text)
	}
	return s.exec(ctx, q, st, text)
}
