package mcp

import (
	"context"
	"net/http"
	"sync/atomic"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/pergola-ai/pergola/domain/errs"
)

// lifetime is the context of a transport's long-lived stream: bound to the
// Connect context until keep is called, then only to Client.Close.
type lifetime struct {
	cancel context.CancelFunc
	stop   func() bool
}

// keep detaches the stream from the Connect context. It reports false
// when that context ended first, and the stream with it.
func (l lifetime) keep() bool { return l.stop() }

// newTransport builds the SDK transport for kind. The streamable transport
// asks for no standalone event stream (server notifications are not
// needed: tools are refreshed on demand), so every exchange is a request
// with its own response. It fails with errs.Invalid naming "transport"
// for an unknown kind.
func newTransport(ctx context.Context, kind, endpoint string, hc *http.Client) (sdk.Transport, lifetime, error) {
	switch kind {
	case "", TransportStreamable:
		t := &sdk.StreamableClientTransport{Endpoint: endpoint, HTTPClient: hc, DisableStandaloneSSE: true, MaxEventSize: maxEventSize}
		return t, lifetime{cancel: func() {}, stop: func() bool { return ctx.Err() == nil }}, nil
	case TransportSSE:
		life, cancel := context.WithCancel(context.WithoutCancel(ctx))
		stop := context.AfterFunc(ctx, cancel)
		t := &detachedSSE{inner: &sdk.SSEClientTransport{Endpoint: endpoint, HTTPClient: hc, MaxEventSize: maxEventSize}, life: life}
		return t, lifetime{cancel: cancel, stop: stop}, nil
	}
	return nil, lifetime{}, errs.Invalid("transport", "must be %q or %q, got %q", TransportStreamable, TransportSSE, kind)
}

// detachedSSE opens the SSE transport's GET stream with a context of its
// own: the SDK ties the stream to the context given to Connect, which the
// caller cancels once Connect returns.
type detachedSSE struct {
	inner *sdk.SSEClientTransport
	life  context.Context
}

// Connect implements sdk.Transport.
func (t *detachedSSE) Connect(context.Context) (sdk.Connection, error) {
	return t.inner.Connect(t.life)
}

// headerTransport adds the configured headers to requests for the
// server's host only, so that credentials never follow a redirect away,
// and remembers the last refusal status (401, 403) the server answered.
type headerTransport struct {
	base    http.RoundTripper
	host    string
	headers map[string]string
	denied  atomic.Int32
}

// RoundTrip implements http.RoundTripper.
func (t *headerTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	base := t.base
	if base == nil {
		base = http.DefaultTransport
	}
	if req.URL.Host == t.host && len(t.headers) > 0 {
		req = req.Clone(req.Context())
		for k, v := range t.headers {
			req.Header.Set(k, v)
		}
	}
	resp, err := base.RoundTrip(req)
	if err == nil && (resp.StatusCode == http.StatusUnauthorized || resp.StatusCode == http.StatusForbidden) {
		t.denied.Store(int32(resp.StatusCode))
	}
	return resp, err
}
