package mcp

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/pergola-ai/pergola/domain/errs"
	"github.com/pergola-ai/pergola/infra/egress"
)

// What can go wrong with a server, for errors.Is. Each also matches a
// sentinel of errs: ErrUnreachable and ErrProtocol match errs.ErrUnavailable;
// ErrNotMCP and ErrAuth match errs.ErrInvalid, since the builder must fix
// the URL or the credentials (never errs.ErrUnauthenticated, which would
// blame the caller's own token).
var (
	ErrUnreachable = errs.New(errs.ErrUnavailable, "the MCP server is unreachable")
	ErrNotMCP      = errs.New(errs.ErrInvalid, "the URL does not answer as an MCP server")
	ErrAuth        = errs.New(errs.ErrInvalid, "the MCP server refused the credentials")
	ErrProtocol    = errs.New(errs.ErrUnavailable, "MCP protocol error")
)

// Error is a failed exchange with a server. Its text reads like
// "mcp: connect to http://host/mcp: the MCP server is unreachable: dial
// tcp ...: connection refused".
type Error struct {
	Op   string // "connect to", "list the tools of", "call tool x on"
	URL  string
	Kind error // ErrUnreachable, ErrNotMCP, ErrAuth or ErrProtocol
	Err  error
}

func (e *Error) Error() string {
	return "mcp: " + e.Op + " " + e.URL + ": " + e.Kind.Error() + ": " + e.Err.Error()
}

// Unwrap gives errors.Is and errors.As both the kind and the cause.
func (e *Error) Unwrap() []error { return []error{e.Kind, e.Err} }

// ToolError is a tool's own failure (a result with isError set): the
// server worked, the tool did not. Its text is the tool's message, for the
// model to read.
type ToolError struct{ Text string }

func (e *ToolError) Error() string { return e.Text }

// classify wraps err from op on url in an *Error of the right kind. An
// egress refusal and the caller's own cancellation keep their identity.
func classify(op, url string, err error) error {
	if err == nil {
		return nil
	}
	if errors.Is(err, egress.ErrRefused) || errors.Is(err, context.Canceled) {
		return fmt.Errorf("mcp: %s %s: %w", op, url, err)
	}
	return &Error{Op: op, URL: url, Kind: kindOf(op, err), Err: err}
}

func kindOf(op string, err error) error {
	var netErr net.Error
	var wire *jsonrpc.Error
	switch {
	case errors.As(err, &netErr), errors.Is(err, context.DeadlineExceeded):
		return ErrUnreachable
	case errors.As(err, &wire):
		return ErrProtocol
	case op == "connect to":
		return ErrNotMCP
	case errors.Is(err, sdk.ErrConnectionClosed), errors.Is(err, io.EOF), errors.Is(err, io.ErrUnexpectedEOF):
		return ErrUnreachable
	}
	return ErrProtocol
}
