package httpx

import (
	"database/sql"
	"database/sql/driver"
	"errors"
	"net"
	"net/http"
	"strconv"
	"strings"
	"syscall"

	"github.com/cloudwego/hertz/pkg/app"
	"github.com/go-sql-driver/mysql"
)

// RetryAfterSeconds is the Retry-After of a 503: long enough for a
// restarted database or Redis to answer again, short enough that clients
// notice at once when it does.
const RetryAfterSeconds = 3

// MsgDatabaseDown is what a request that failed because the database
// could not be reached, was busy or would not take the request for now
// (locked account, too many connections, read-only) answers, with 503.
const MsgDatabaseDown = "the database is unavailable; retry in a few seconds"

// downMessages are the texts of the connection failures that reach the
// edge without a typed error in their chain: go-sql-driver's "invalid
// connection" (mysql.ErrInvalidConn), MySQL/MariaDB shutting down or
// dropping the session, and SQLite's busy or locked database. They are
// matched only for errors the vocabulary does not know, which would
// otherwise answer 500.
var downMessages = []string{
	"invalid connection", "bad connection", "connection refused", "connection reset", "broken pipe",
	"server has gone away", "lost connection to", "shutdown in progress", "connection was killed",
	"database is locked", "sqlite_busy", "sqlite_locked", "database table is locked",
	"readonly database", "database or disk is full", "disk i/o error", "unable to open database file",
}

// refusingNumbers are the MySQL and MariaDB errors of a server that is up
// but will not serve this process for now: an operator or the server
// itself lifts them, and the request may succeed when retried. They
// answer 503 like a lost connection, not 500.
var refusingNumbers = map[uint16]bool{
	1040: true, // too many connections
	1203: true, // the user has more than max_user_connections
	1226: true, // the user has exceeded a resource limit
	1129: true, // host blocked after too many connection errors
	1045: true, // access denied (the account's password or grants changed)
	3118: true, // account locked (MySQL)
	4151: true, // account locked (MariaDB)
	1290: true, // --read-only (or another option) prevents the statement
	1836: true, // running in read-only mode
	1792: true, // read-only transaction
	1021: true, // disk full
	1205: true, // lock wait timeout
	1213: true, // deadlock
	1927: true, // connection killed
	4031: true, // disconnected for inactivity
}

// serverRefusing reports whether err is one of refusingNumbers.
func serverRefusing(err error) bool {
	var me *mysql.MySQLError
	return errors.As(err, &me) && refusingNumbers[me.Number]
}

// storageDown reports whether err says a backing store (the database,
// mostly) could not be reached or was busy, rather than that the request
// or Pergola is wrong: the request may succeed when retried. It knows the
// driver-independent sentinels of database/sql, network errors and the
// texts above, so every store and handler gets the same answer without
// translating these errors itself.
func storageDown(err error) bool {
	if errors.Is(err, driver.ErrBadConn) || errors.Is(err, sql.ErrConnDone) ||
		errors.Is(err, syscall.ECONNREFUSED) || errors.Is(err, syscall.ECONNRESET) || errors.Is(err, syscall.EPIPE) {
		return true
	}
	var op *net.OpError
	if errors.As(err, &op) || serverRefusing(err) {
		return true
	}
	msg := strings.ToLower(err.Error())
	for _, m := range downMessages {
		if strings.Contains(msg, m) {
			return true
		}
	}
	return false
}

// setRetryAfter adds Retry-After to a 503 that has none, so clients and
// proxies wait a little and try again.
func setRetryAfter(c *app.RequestContext, status int) {
	if status == http.StatusServiceUnavailable && len(c.Response.Header.Peek("Retry-After")) == 0 {
		c.Header("Retry-After", strconv.Itoa(RetryAfterSeconds))
	}
}
