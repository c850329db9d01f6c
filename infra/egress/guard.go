// Package egress is the one guarded HTTP client for everything a tool sends
// out of the process: plugin calls, workflow HTTP nodes, web fetch and MCP.
//
// It refuses loopback, private, link-local, unique-local, unspecified,
// multicast, carrier-grade NAT and cloud metadata destinations unless
// Config.Allow names them. The check runs on the address actually dialled
// (names are resolved once, every address is checked, and a checked address
// is dialled), so DNS rebinding cannot slip past it; every redirect is
// checked again. Only http and https leave; connect time, total time,
// redirects and response size are capped.
package egress

import (
	"context"
	"net"
	"net/http"
	"net/netip"
	"time"
)

// Defaults for the zero values of Config.
const (
	DefaultConnectTimeout   = 5 * time.Second
	DefaultTotalTimeout     = 30 * time.Second
	DefaultMaxResponseBytes = 2 << 20
	DefaultMaxRedirects     = 5
)

// Config says what the guard lets out.
type Config struct {
	// Allow lists destinations allowed although they are private, loopback
	// or otherwise refused (PERGOLA_EGRESS_ALLOW): host names
	// ("db.internal", "*.svc.cluster.local"), host:port ("127.0.0.1:8080",
	// "[::1]:8080", "db.internal:5432"), IPs and CIDRs.
	Allow []string
	// ConnectTimeout bounds each dial and TLS handshake; zero means 5s.
	ConnectTimeout time.Duration
	// TotalTimeout bounds a whole request, redirects and reading the body
	// included; zero means 30s.
	TotalTimeout time.Duration
	// MaxResponseBytes caps each response body, counted while reading
	// (Content-Length is not trusted); zero means 2 MiB. Reading past it
	// fails with ErrTooLarge.
	MaxResponseBytes int64
	// MaxRedirects caps the redirects followed; zero means 5, a negative
	// value follows none (the 3xx response is returned as is).
	MaxRedirects int
	// Resolver looks up the addresses of a host name; nil means
	// net.DefaultResolver. Tests use it to point names at local servers.
	Resolver func(ctx context.Context, host string) ([]netip.Addr, error)
}

// Guard holds the checks and the shared transport. It is safe for
// concurrent use; build one per process.
type Guard struct {
	cfg       Config
	allow     allowList
	ranges    []blockedRange
	metadata  map[string]bool
	dialer    net.Dialer
	transport http.RoundTripper
}

// New returns a guard for cfg. It returns an error matching errs.ErrInvalid
// naming the first Allow entry it cannot read.
func New(cfg Config) (*Guard, error) {
	allow, err := parseAllow(cfg.Allow)
	if err != nil {
		return nil, err
	}
	cfg = withDefaults(cfg)
	g := &Guard{
		cfg:      cfg,
		allow:    allow,
		ranges:   blockedRanges(),
		metadata: metadataNames(),
		dialer:   net.Dialer{Timeout: cfg.ConnectTimeout, KeepAlive: 30 * time.Second},
	}
	g.transport = &guardedTransport{g: g, base: g.newTransport()}
	return g, nil
}

func withDefaults(cfg Config) Config {
	if cfg.ConnectTimeout <= 0 {
		cfg.ConnectTimeout = DefaultConnectTimeout
	}
	if cfg.TotalTimeout <= 0 {
		cfg.TotalTimeout = DefaultTotalTimeout
	}
	if cfg.MaxResponseBytes <= 0 {
		cfg.MaxResponseBytes = DefaultMaxResponseBytes
	}
	if cfg.MaxRedirects == 0 {
		cfg.MaxRedirects = DefaultMaxRedirects
	}
	if cfg.Resolver == nil {
		cfg.Resolver = func(ctx context.Context, host string) ([]netip.Addr, error) {
			return net.DefaultResolver.LookupNetIP(ctx, "ip", host)
		}
	}
	return cfg
}

// newTransport builds the pooled transport under the guard. It never uses
// a proxy: a proxy would make the proxy the dialled address and hide the
// real destination from the check.
func (g *Guard) newTransport() *http.Transport {
	return &http.Transport{
		Proxy:                 nil,
		DialContext:           g.dial,
		ForceAttemptHTTP2:     true,
		TLSHandshakeTimeout:   g.cfg.ConnectTimeout,
		MaxIdleConns:          100,
		MaxIdleConnsPerHost:   16,
		IdleConnTimeout:       90 * time.Second,
		ExpectContinueTimeout: time.Second,
	}
}

// Client returns an HTTP client that sends through the guard: refused
// destinations fail with an error matching ErrRefused, bodies past the cap
// with ErrTooLarge, redirect chains past the cap with ErrTooManyRedirects,
// and slow requests with a timeout error. Each call returns a new client
// over the same connection pool, so callers may change their copy.
func (g *Guard) Client() *http.Client {
	return &http.Client{
		Transport:     g.transport,
		CheckRedirect: g.checkRedirect,
		Timeout:       g.cfg.TotalTimeout,
	}
}
