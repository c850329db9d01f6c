package provider

import (
	"net"
	"net/http"
	"time"
)

// Pool bounds the connections a process keeps to model endpoints. The zero
// value selects the defaults below.
type Pool struct {
	// MaxIdlePerHost is how many idle keep-alive connections are kept per
	// endpoint (default 16); more finished calls close their connection.
	MaxIdlePerHost int
	// MaxIdle is how many idle connections are kept over all endpoints
	// (default 64).
	MaxIdle int
	// IdleTimeout closes a connection idle this long (default 30s).
	IdleTimeout time.Duration
	// ResponseHeaderTimeout bounds the wait for a response's headers once
	// the request is sent (default 3m: a non-streamed answer of a slow
	// model only sends its headers when it is complete).
	ResponseHeaderTimeout time.Duration
	// DialTimeout bounds opening a TCP connection (default 10s).
	DialTimeout time.Duration
}

// Defaults of Pool.
const (
	DefaultMaxIdlePerHost        = 16
	DefaultMaxIdle               = 64
	DefaultIdleTimeout           = 30 * time.Second
	DefaultResponseHeaderTimeout = 3 * time.Minute
	DefaultDialTimeout           = 10 * time.Second
)

func (p Pool) withDefaults() Pool {
	if p.MaxIdlePerHost <= 0 {
		p.MaxIdlePerHost = DefaultMaxIdlePerHost
	}
	if p.MaxIdle <= 0 {
		p.MaxIdle = DefaultMaxIdle
	}
	if p.IdleTimeout <= 0 {
		p.IdleTimeout = DefaultIdleTimeout
	}
	if p.ResponseHeaderTimeout <= 0 {
		p.ResponseHeaderTimeout = DefaultResponseHeaderTimeout
	}
	if p.DialTimeout <= 0 {
		p.DialTimeout = DefaultDialTimeout
	}
	return p
}

// NewHTTPClient returns the client every model call of a process should
// share: one transport whose idle pool is bounded by p and emptied after
// p.IdleTimeout. Concurrent calls are not capped (MaxConnsPerHost stays
// 0): a cap would silently queue streamed chats inside the transport,
// where neither the caller nor a metric sees them wait; how many chats
// run at once is the admission control's business. There is no overall
// client timeout: a stream lasts as long as its answer, bounded by its
// context.
func NewHTTPClient(p Pool) *http.Client {
	p = p.withDefaults()
	t := http.DefaultTransport.(*http.Transport).Clone()
	t.DialContext = (&net.Dialer{Timeout: p.DialTimeout, KeepAlive: 30 * time.Second}).DialContext
	t.MaxIdleConns = p.MaxIdle
	t.MaxIdleConnsPerHost = p.MaxIdlePerHost
	t.MaxConnsPerHost = 0
	t.IdleConnTimeout = p.IdleTimeout
	t.ResponseHeaderTimeout = p.ResponseHeaderTimeout
	return &http.Client{Transport: t}
}
