// Package mcp connects to MCP servers (Model Context Protocol) so that
// their tools can be used as plugin tools: it lists the tools a server
// offers and calls them, over streamable HTTP or the older HTTP+SSE
// transport, through the guarded egress client.
package mcp

import (
	"context"
	"fmt"
	"net/http"
	"net/url"
	"strings"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/pergola-ai/pergola/domain/errs"
)

// Transports.
const (
	TransportStreamable = "streamable"
	TransportSSE        = "sse"
)

// maxEventSize bounds one server-sent event, so that a server cannot make
// the client buffer without end.
const maxEventSize = 4 << 20

// Config says how to reach an MCP server.
type Config struct {
	// URL is the server's endpoint: the streamable HTTP endpoint, or the
	// SSE endpoint (the GET stream) for the "sse" transport.
	URL string
	// Transport is "streamable" (the default when empty) or "sse".
	Transport string
	// Headers are sent with every request to the server's host (auth such
	// as "Authorization: Bearer ..."); never to another host a redirect
	// leads to.
	Headers map[string]string
	// HTTP is the guarded egress client. Its Timeout bounds each operation
	// (Connect, ListTools, CallTool) whose context has no deadline of its
	// own; it is not applied to the long-lived SSE stream. The guard's
	// response cap applies per HTTP response: per call on the streamable
	// transport, to the whole event stream of an "sse" session (which then
	// ends; connect again). Nil means http.DefaultClient, for tests only.
	HTTP *http.Client
}

// Tool is a tool an MCP server offers.
type Tool struct {
	Name        string
	Description string
	// InputSchema is the JSON Schema of the tool's arguments, as the server
	// sent it.
	InputSchema map[string]any
}

// Client is a session with one MCP server. It is safe for concurrent use;
// Close it when done.
type Client struct {
	url       string
	session   *sdk.ClientSession
	opTimeout time.Duration
	cancel    context.CancelFunc // ends the SSE stream's context
	done      chan struct{}      // a stdio server's: closed when its process ended
	stderr    *tail              // a stdio server's: what it printed last
}

// Connect opens a session with the server and completes the MCP handshake.
// It returns an error matching errs.ErrInvalid for a bad URL or transport;
// egress.ErrRefused (also errs.ErrForbidden) for a refused address; an
// *Error of kind ErrUnreachable when the server cannot be reached, ErrAuth
// when it answers 401 or 403 (the configured headers are wrong), ErrNotMCP
// when something answers but not as an MCP server (wrong path, an HTML
// page), ErrProtocol when the server fails the handshake.
func Connect(ctx context.Context, cfg Config) (*Client, error) {
	endpoint, err := checkURL(cfg.URL)
	if err != nil {
		return nil, err
	}
	hc, rt, opTimeout := httpClient(cfg, endpoint)
	ctx, cancelOp := withTimeout(ctx, opTimeout)
	defer cancelOp()
	transport, life, err := newTransport(ctx, cfg.Transport, endpoint.String(), hc)
	if err != nil {
		return nil, err
	}
	client := sdk.NewClient(&sdk.Implementation{Name: "pergola", Version: "1.0"}, nil)
	session, err := client.Connect(ctx, transport, nil)
	shown := display(endpoint)
	if err != nil {
		life.cancel()
		if status := rt.denied.Load(); status != 0 {
			return nil, &Error{Op: "connect to", URL: shown, Kind: ErrAuth, Err: fmt.Errorf("HTTP %d %s", status, http.StatusText(int(status)))}
		}
		return nil, classify("connect to", shown, err)
	}
	if !life.keep() {
		session.Close()
		return nil, classify("connect to", shown, ctx.Err())
	}
	return &Client{url: shown, session: session, opTimeout: opTimeout, cancel: life.cancel}, nil
}

// display writes u for messages without a password or query, which may
// carry credentials.
func display(u *url.URL) string {
	c := *u
	c.User = nil
	if c.RawQuery != "" {
		c.RawQuery = "…"
	}
	c.Fragment = ""
	return c.String()
}

// checkURL reads an absolute http(s) URL; it fails with errs.Invalid
// naming "url".
func checkURL(raw string) (*url.URL, error) {
	u, err := url.Parse(strings.TrimSpace(raw))
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return nil, errs.Invalid("url", "must be an absolute http or https URL of an MCP server, got %q", raw)
	}
	return u, nil
}

// httpClient copies cfg.HTTP without its Timeout, which would cut the SSE
// stream, and with the headers added; the Timeout becomes the per-operation
// bound.
func httpClient(cfg Config, endpoint *url.URL) (*http.Client, *headerTransport, time.Duration) {
	base := cfg.HTTP
	if base == nil {
		base = http.DefaultClient
	}
	rt := &headerTransport{base: base.Transport, host: endpoint.Host, headers: cfg.Headers}
	hc := *base
	hc.Timeout = 0
	hc.Transport = rt
	return &hc, rt, base.Timeout
}

// withTimeout bounds ctx by d unless ctx has a deadline or d is zero.
func withTimeout(ctx context.Context, d time.Duration) (context.Context, context.CancelFunc) {
	if _, ok := ctx.Deadline(); ok || d <= 0 {
		return context.WithCancel(ctx)
	}
	return context.WithTimeout(ctx, d)
}

// ListTools returns every tool the server offers, following pages. Errors
// are classified as for Connect; a closed session gives ErrUnreachable.
func (c *Client) ListTools(ctx context.Context) ([]Tool, error) {
	ctx, cancel := withTimeout(ctx, c.opTimeout)
	defer cancel()
	var tools []Tool
	for t, err := range c.session.Tools(ctx, nil) {
		if err != nil {
			return nil, classify("list the tools of", c.url, withStderr(err, c.stderr))
		}
		tools = append(tools, Tool{Name: t.Name, Description: t.Description, InputSchema: schemaMap(t.InputSchema)})
	}
	return tools, nil
}

// Close ends the session and its streams. It returns the error of closing
// the connection, which callers may ignore.
func (c *Client) Close() error {
	defer c.cancel()
	return c.session.Close()
}
