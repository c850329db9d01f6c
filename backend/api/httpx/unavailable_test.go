package httpx

import (
	"context"
	"database/sql/driver"
	"errors"
	"fmt"
	"net"
	"testing"

	"github.com/cloudwego/hertz/pkg/app"
	gomysql "github.com/go-sql-driver/mysql"

	"github.com/pergola-ai/pergola/domain/errs"
)

// refusedDial returns the error of dialing a port nobody listens on, as
// the MySQL driver returns it while the database is down.
func refusedDial(t *testing.T) error {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	_ = ln.Close()
	c, err := net.Dial("tcp", addr)
	if err == nil {
		_ = c.Close()
		t.Fatalf("%s still accepts connections", addr)
	}
	return err
}

func TestDatabaseDownAnswers503(t *testing.T) {
	cases := []struct {
		name string
		err  error
	}{
		{"refused dial wrapped by a store", fmt.Errorf("sqlstore: start chat: %w", refusedDial(t))},
		{"bad connection", fmt.Errorf("sqlstore: get bot: %w", driver.ErrBadConn)},
		{"connection lost mid-query", fmt.Errorf("sqlstore: list: %w", gomysql.ErrInvalidConn)},
		{"server shutting down", fmt.Errorf("x: %w", &gomysql.MySQLError{Number: 1053, Message: "Server shutdown in progress"})},
		{"sqlite busy", errors.New("sqlstore: update chat: database is locked (5) (SQLITE_BUSY)")},
		{"account locked (MariaDB)", fmt.Errorf("x: %w", &gomysql.MySQLError{Number: 4151, Message: "Access denied, this account is locked"})},
		{"account locked (MySQL)", fmt.Errorf("x: %w", &gomysql.MySQLError{Number: 3118, Message: "Access denied for user 'p'@'h'. Account is locked."})},
		{"too many connections", fmt.Errorf("x: %w", &gomysql.MySQLError{Number: 1040, Message: "Too many connections"})},
		{"read-only server", fmt.Errorf("x: %w", &gomysql.MySQLError{Number: 1290, Message: "The MariaDB server is running with the --read-only option"})},
		{"sqlite read-only", errors.New("sqlstore: create bot: attempt to write a readonly database (8)")},
		{"sqlite disk full", errors.New("sqlstore: create bot: database or disk is full (13)")},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			status, code, msg := Classify(tc.err)
			if status != 503 || code != CodeUnavailable || msg != MsgDatabaseDown {
				t.Fatalf("%v -> %d %d %q; want 503 %d %q", tc.err, status, code, msg, CodeUnavailable, MsgDatabaseDown)
			}
		})
	}
}

func TestOtherFailuresStayInternalOrTheirOwn(t *testing.T) {
	if status, _, _ := Classify(errors.New("sqlstore: decode chat 7 meta: invalid character")); status != 500 {
		t.Fatalf("a decoding failure answered %d, want 500", status)
	}
	// A domain error wrapping a connection failure keeps its own answer.
	wrapped := fmt.Errorf("%w: %w", errs.Invalid("base_url", "does not answer"), driver.ErrBadConn)
	if status, _, _ := Classify(wrapped); status != 400 {
		t.Fatalf("a domain error answered %d, want 400", status)
	}
}

func TestFailSetsRetryAfterOn503(t *testing.T) {
	c := app.NewContext(0)
	Fail(context.Background(), c, fmt.Errorf("sqlstore: %w", driver.ErrBadConn))
	if c.Response.StatusCode() != 503 || string(c.Response.Header.Peek("Retry-After")) != "3" {
		t.Fatalf("got %d with Retry-After %q; want 503 and 3", c.Response.StatusCode(), c.Response.Header.Peek("Retry-After"))
	}
	c = app.NewContext(0)
	c.Header("Retry-After", "9")
	Fail(context.Background(), c, errs.New(errs.ErrUnavailable, "the queue is full"))
	if got := string(c.Response.Header.Peek("Retry-After")); got != "9" {
		t.Fatalf("Retry-After = %q; a handler's own value must be kept", got)
	}
	c = app.NewContext(0)
	Fail(context.Background(), c, errs.Invalid("name", "is required"))
	if got := c.Response.Header.Peek("Retry-After"); len(got) != 0 {
		t.Fatalf("a 400 carries Retry-After %q", got)
	}
}
