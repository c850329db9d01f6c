package tablestore

import (
	"context"
	"database/sql"
	"database/sql/driver"
	"fmt"
	"reflect"
	"unsafe"

	"modernc.org/libc"
	sqlite3 "modernc.org/sqlite/lib"

	"github.com/pergola-ai/pergola/domain/table"
)

// maxSQLiteLength is SQLITE_LIMIT_LENGTH on the rows' connections: the
// longest text, blob or row SQLite builds; past it a statement fails with
// "string or blob too big" instead of taking the server's memory. A row
// holds at most table.MaxFields texts of table.MaxTextLen bytes.
const maxSQLiteLength = (table.MaxFields + 2) * (table.MaxTextLen + 1)

// limitedConnector opens SQLite connections with the length limit set, on
// every connection of the pool, since SQLite keeps limits per connection.
type limitedConnector struct {
	drv driver.Driver
	dsn string
}

// Connect opens a connection and sets its length limit.
func (c *limitedConnector) Connect(context.Context) (driver.Conn, error) {
	conn, err := c.drv.Open(c.dsn)
	if err != nil {
		return nil, err
	}
	if err := setLengthLimit(conn, maxSQLiteLength); err != nil {
		_ = conn.Close()
		return nil, err
	}
	return conn, nil
}

// Driver returns the SQLite driver.
func (c *limitedConnector) Driver() driver.Driver { return c.drv }

// setLengthLimit calls sqlite3_limit on the driver's connection. The
// driver (glebarez/go-sqlite, a copy of modernc.org/sqlite) keeps the
// handle in unexported fields and has no Limit function of its own, so
// they are read by reflection; a driver whose connection looks different
// fails here, at the first connection, rather than running unlimited.
func setLengthLimit(conn driver.Conn, n int32) error {
	v := reflect.ValueOf(conn)
	if v.Kind() != reflect.Pointer || v.Elem().Kind() != reflect.Struct {
		return fmt.Errorf("tablestore: unexpected SQLite connection %T", conn)
	}
	db, tls := v.Elem().FieldByName("db"), v.Elem().FieldByName("tls")
	if db.Kind() != reflect.Uintptr || tls.Kind() != reflect.Pointer || tls.Type().Elem() != reflect.TypeOf(libc.TLS{}) {
		return fmt.Errorf("tablestore: cannot set SQLite's length limit on %T", conn)
	}
	t := (*libc.TLS)(unsafe.Pointer(tls.Pointer()))
	sqlite3.Xsqlite3_limit(t, uintptr(db.Uint()), sqlite3.SQLITE_LIMIT_LENGTH, n)
	if got := sqlite3.Xsqlite3_limit(t, uintptr(db.Uint()), sqlite3.SQLITE_LIMIT_LENGTH, -1); got != n {
		return fmt.Errorf("tablestore: SQLite's length limit is %d, not %d", got, n)
	}
	return nil
}

// openLimitedSQLite opens the pool of the rows' SQLite file.
func openLimitedSQLite(dsn string) (*sql.DB, error) {
	probe, err := sql.Open("sqlite", dsn)
	if err != nil {
		return nil, err
	}
	drv := probe.Driver()
	_ = probe.Close()
	return sql.OpenDB(&limitedConnector{drv: drv, dsn: dsn}), nil
}
