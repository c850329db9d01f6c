package redis_test

import (
	"context"
	"net"
	"slices"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	goredis "github.com/redis/go-redis/v9"

	"github.com/pergola-ai/pergola/infra/kvtest"
	"github.com/pergola-ai/pergola/infra/redis"
	"github.com/pergola-ai/pergola/infra/testenv"
)

var _ kvtest.InvalidationBus = (*redis.InvalidationBus)(nil)

// fastBus pings often so the tests need not wait long for a proof.
var fastBus = redis.InvalidationOptions{Ping: 20 * time.Millisecond, Silence: 400 * time.Millisecond, Backoff: 20 * time.Millisecond}

// newBus returns a bus reaching Redis at addr under prefix, on a client of
// its own, as a process would have.
func newBus(t *testing.T, addr, prefix string) *redis.InvalidationBus {
	t.Helper()
	client := goredis.NewClient(&goredis.Options{Addr: addr, MaxRetries: -1})
	t.Cleanup(func() { _ = client.Close() })
	return redis.NewInvalidationBus(client, prefix, fastBus)
}

func TestInvalidationBus(t *testing.T) {
	kvtest.TestInvalidationBus(t, func(t *testing.T, n int) []kvtest.InvalidationBus {
		addr, prefix := testenv.RedisAddr(t), testenv.RedisPrefix(t, 0)
		var out []kvtest.InvalidationBus
		for range n {
			out = append(out, newBus(t, addr, prefix))
		}
		return out
	})
}

// TestInvalidationHeardCoversEveryEarlierPublication checks what the
// caches' staleness bound rests on: once a listener is told it has heard
// everything up to a time, a publication Redis received before that time
// has been delivered to it.
func TestInvalidationHeardCoversEveryEarlierPublication(t *testing.T) {
	addr, prefix := testenv.RedisAddr(t), testenv.RedisPrefix(t, 0)
	r := kvtest.Listen(t, newBus(t, addr, prefix))
	other := newBus(t, addr, prefix)
	for i := range 20 {
		tag := "token:" + string(rune('a'+i))
		if err := other.Publish(context.Background(), []string{tag}); err != nil {
			t.Fatal(err)
		}
		published := time.Now() // Redis has the message: Publish returned
		waitFor(t, "the listener to be heard past the publication", func() bool { return r.HeardAt().After(published) })
		if !slices.Contains(r.Dropped(), tag) {
			t.Fatalf("heard up to %v, after publishing %s at %v, without having received it (events %v)",
				r.HeardAt(), tag, published, r.Events())
		}
	}
}

// TestInvalidationBusResubscribesAfterTheConnectionDrops cuts the
// subscription's connection and refuses new ones for a while: the
// listener stops being heard (so a hub stops serving its caches), what is
// published meanwhile is lost, and once Redis is reachable again the
// listener is told it was resubscribed (so a hub flushes its caches)
// before it is heard again.
func TestInvalidationBusResubscribesAfterTheConnectionDrops(t *testing.T) {
	addr, prefix := testenv.RedisAddr(t), testenv.RedisPrefix(t, 0)
	proxy := newProxy(t, addr)
	r := kvtest.Listen(t, newBus(t, proxy.addr(), prefix))
	waitFor(t, "the listener to be heard", func() bool { return !r.HeardAt().IsZero() })
	proxy.refuse(true)
	proxy.cutAll()
	cut := time.Now() // a ping sent from now on cannot be answered
	if err := newBus(t, addr, prefix).Publish(context.Background(), []string{"user:lost"}); err != nil {
		t.Fatal(err)
	}
	time.Sleep(200 * time.Millisecond) // ten pings' worth, none of which can be answered
	if r.HeardAt().After(cut) || r.Resubscriptions() != 1 {
		t.Fatalf("heard at %v after the cut at %v, %d subscriptions; want nothing heard while Redis is unreachable",
			r.HeardAt(), cut, r.Resubscriptions())
	}
	proxy.refuse(false)
	back := time.Now()
	waitFor(t, "the listener to be resubscribed and heard", func() bool { return r.Resubscriptions() == 2 && r.HeardAt().After(back) })
	if slices.Contains(r.Dropped(), "user:lost") {
		t.Fatal("a message published while the subscription was down was delivered; the test does not show what it means to")
	}
	checkDelivered(t, r, addr, prefix, "user:after")
}

// TestInvalidationBusReplacesASilentConnection freezes the subscription's
// connection without closing it (a half-open TCP connection): pings go
// unanswered, and after Silence the bus subscribes again on a new one.
func TestInvalidationBusReplacesASilentConnection(t *testing.T) {
	addr, prefix := testenv.RedisAddr(t), testenv.RedisPrefix(t, 0)
	proxy := newProxy(t, addr)
	r := kvtest.Listen(t, newBus(t, proxy.addr(), prefix))
	waitFor(t, "the listener to be heard", func() bool { return !r.HeardAt().IsZero() })
	frozen := time.Now()
	proxy.freezeAll()
	waitFor(t, "a new subscription", func() bool { return r.Resubscriptions() == 2 && r.HeardAt().After(frozen) })
	checkDelivered(t, r, addr, prefix, "bot:after")
}

func checkDelivered(t *testing.T, r *kvtest.Recorder, addr, prefix, tag string) {
	t.Helper()
	if err := newBus(t, addr, prefix).Publish(context.Background(), []string{tag}); err != nil {
		t.Fatal(err)
	}
	waitFor(t, tag+" to be delivered", func() bool { return slices.Contains(r.Dropped(), tag) })
}

func waitFor(t *testing.T, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(kvtest.Patience)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("gave up after %s waiting for %s", kvtest.Patience, what)
		}
		time.Sleep(5 * time.Millisecond)
	}
}

// proxy forwards TCP connections to Redis and can cut, freeze or refuse
// them, to break a subscription without touching the shared Redis.
type proxy struct {
	ln      net.Listener
	target  string
	mu      sync.Mutex
	links   []*link
	refused bool
}

// link is one forwarded connection: the client's side and Redis's.
type link struct {
	down, up net.Conn
	frozen   atomic.Bool
}

func (l *link) close() { _ = l.down.Close(); _ = l.up.Close() }

func newProxy(t *testing.T, target string) *proxy {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	p := &proxy{ln: ln, target: target}
	go p.accept()
	t.Cleanup(func() { _ = ln.Close(); p.cutAll() })
	return p
}

func (p *proxy) addr() string { return p.ln.Addr().String() }

func (p *proxy) accept() {
	for {
		c, err := p.ln.Accept()
		if err != nil {
			return
		}
		p.mu.Lock()
		refused := p.refused
		p.mu.Unlock()
		if refused {
			_ = c.Close()
			continue
		}
		up, err := net.Dial("tcp", p.target)
		if err != nil {
			_ = c.Close()
			continue
		}
		l := &link{down: c, up: up}
		p.mu.Lock()
		p.links = append(p.links, l)
		p.mu.Unlock()
		go l.pipe(up, c)
		go l.pipe(c, up)
	}
}

// pipe copies until a side closes; a frozen link swallows what it reads.
func (l *link) pipe(dst, src net.Conn) {
	defer l.close()
	buf := make([]byte, 32<<10)
	for {
		n, err := src.Read(buf)
		if n > 0 && !l.frozen.Load() {
			if _, werr := dst.Write(buf[:n]); werr != nil {
				return
			}
		}
		if err != nil {
			return
		}
	}
}

func (p *proxy) refuse(on bool) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.refused = on
}

// cutAll closes every forwarded connection.
func (p *proxy) cutAll() {
	p.mu.Lock()
	links := p.links
	p.links = nil
	p.mu.Unlock()
	for _, l := range links {
		l.close()
	}
}

// freezeAll stops forwarding on the current connections without closing
// them (they are closed when the test ends); new ones are forwarded.
func (p *proxy) freezeAll() {
	p.mu.Lock()
	defer p.mu.Unlock()
	for _, l := range p.links {
		l.frozen.Store(true)
	}
}
