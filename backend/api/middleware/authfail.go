package middleware

import (
	"context"
	"log/slog"
	"net/http"
	"strconv"
	"sync"
	"time"

	"github.com/cloudwego/hertz/pkg/app"

	"github.com/pergola-ai/pergola/backend/api/httpx"
)

// maxBlocked bounds how many blocked addresses a process remembers; past
// it, expired entries are dropped and then the oldest block is forgotten
// (the shared limiter still counts its failures).
const maxBlocked = 10000

// FailureGuard limits failed authentications per client address. Failures
// are counted in the shared limiter (memory or Redis, so every process sees
// them); once an address is past its limit, the process remembers the block
// locally and answers 429 before looking the token up, so a flood of
// made-up tokens costs no database query. A token this process accepted
// in the last ten minutes is still looked up from a blocked address (so
// the people behind a shared address keep working while an attacker
// there is refused); any other token waits for the block to end.
type FailureGuard struct {
	limiter   Limiter
	perMinute int
	proxies   Proxies
	log       *slog.Logger

	mu      sync.Mutex
	blocked map[string]time.Time // address -> end of its block
	known   vouched
}

// NewFailureGuard allows perMinute failed authentications per address a
// minute; 0 turns the guard off. Addresses are read through proxies.
func NewFailureGuard(l Limiter, perMinute int, proxies Proxies, log *slog.Logger) *FailureGuard {
	return &FailureGuard{limiter: l, perMinute: perMinute, proxies: proxies, log: log,
		blocked: map[string]time.Time{}, known: vouched{}}
}

// addr returns the client address failures are counted against.
func (g *FailureGuard) addr(c *app.RequestContext) string {
	if g == nil {
		return ClientAddr(c)
	}
	return g.proxies.ClientAddr(c)
}

// accepted remembers a token that authenticated.
func (g *FailureGuard) accepted(secret string, now time.Time) {
	if g == nil || g.perMinute <= 0 {
		return
	}
	g.mu.Lock()
	defer g.mu.Unlock()
	g.known.add(secret, now)
}

// retryAfter returns how long addr stays blocked for secret, or 0.
func (g *FailureGuard) retryAfter(addr, secret string, now time.Time) time.Duration {
	if g == nil || g.perMinute <= 0 {
		return 0
	}
	g.mu.Lock()
	defer g.mu.Unlock()
	until, ok := g.blocked[addr]
	if !ok || !until.After(now) {
		delete(g.blocked, addr)
		return 0
	}
	if g.known.has(secret, now) {
		return 0
	}
	return until.Sub(now)
}

// failed counts one failure of addr and returns how long it is blocked
// when this failure went past the limit, or 0. A limiter failure lets the
// request through (it is answered 401 all the same) and is logged.
func (g *FailureGuard) failed(ctx context.Context, addr string) time.Duration {
	if g == nil || g.perMinute <= 0 {
		return 0
	}
	ok, retry, err := g.limiter.Allow(ctx, "authfail:"+addr, g.perMinute, time.Minute)
	if err != nil {
		g.log.WarnContext(ctx, "counting an authentication failure failed", "err", err)
		return 0
	}
	if ok {
		return 0
	}
	g.block(addr, time.Now().Add(retry))
	return retry
}

func (g *FailureGuard) block(addr string, until time.Time) {
	g.mu.Lock()
	defer g.mu.Unlock()
	if len(g.blocked) >= maxBlocked {
		g.forget(time.Now())
	}
	g.blocked[addr] = until
}

// forget drops expired blocks, then the earliest-ending ones until there
// is room; g.mu is held.
func (g *FailureGuard) forget(now time.Time) {
	for a, until := range g.blocked {
		if !until.After(now) {
			delete(g.blocked, a)
		}
	}
	for len(g.blocked) >= maxBlocked {
		var first string
		for a, until := range g.blocked {
			if first == "" || until.Before(g.blocked[first]) {
				first = a
			}
		}
		delete(g.blocked, first)
	}
}

// tooManyFailures answers 429 with Retry-After and code 4013.
func tooManyFailures(c *app.RequestContext, perMinute int, retry time.Duration) {
	secs := max(int(retry.Seconds()+0.999), 1)
	c.Header("Retry-After", strconv.Itoa(secs))
	httpx.FailWith(c, http.StatusTooManyRequests, httpx.CodeRateLimited,
		"too many failed authentications from this address (limit "+strconv.Itoa(perMinute)+
			" a minute); check the token and retry after "+strconv.Itoa(secs)+"s")
}
