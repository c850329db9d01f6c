package redis

import (
	"context"
	"fmt"
	"strconv"
	"strings"
	"time"

	goredis "github.com/redis/go-redis/v9"
)

// InvalidationListener is what an InvalidationBus delivers to; it aliases
// an unnamed interface type, declared identically in package memory and by
// the consumer (application/invalidation), so they are all one type.
type InvalidationListener = interface {
	Drop(tags []string)
	Resubscribed()
	Heard(asOf time.Time)
}

// InvalidationOptions tunes an InvalidationBus. The zero value is usable.
type InvalidationOptions struct {
	// Ping is how often the subscription's connection is pinged; each
	// answer proves that everything published before the ping was sent
	// has been delivered. 0 means 250ms.
	Ping time.Duration
	// Silence is how long the subscription may go without an answer
	// before it is dropped and made again; 0 means 3s.
	Silence time.Duration
	// Backoff is the first pause after a failed read (Redis unreachable);
	// it doubles with every failure in a row, up to 2s. 0 means 100ms.
	Backoff time.Duration
}

// InvalidationBus carries cache invalidations between processes on Redis
// PUBLISH and SUBSCRIBE, on the channel prefix + "pubsub:invalidation". A
// listener is told when its subscription is (re)made, since messages
// published while it was down are lost, and, through answered pings, up to
// when it has heard everything. It is safe for concurrent use.
type InvalidationBus struct {
	client  goredis.UniversalClient
	channel string
	opts    InvalidationOptions
	start   time.Time // ping payloads are offsets from here (monotonic)
}

// NewInvalidationBus returns a bus on client under prefix.
func NewInvalidationBus(client goredis.UniversalClient, prefix string, opts InvalidationOptions) *InvalidationBus {
	if opts.Ping <= 0 {
		opts.Ping = 250 * time.Millisecond
	}
	if opts.Silence <= 0 {
		opts.Silence = 3 * time.Second
	}
	if opts.Backoff <= 0 {
		opts.Backoff = 100 * time.Millisecond
	}
	return &InvalidationBus{client: client, channel: keyspace(prefix).name("pubsub", "invalidation"), opts: opts, start: time.Now()}
}

// Publish sends tags to every subscribed process. Redis failures match
// errs.ErrUnavailable.
func (b *InvalidationBus) Publish(ctx context.Context, tags []string) error {
	if err := b.client.Publish(ctx, b.channel, strings.Join(tags, "\n")).Err(); err != nil {
		return fail("publish invalidation", err)
	}
	return nil
}

// Listen delivers to l until ctx is done: each message as Drop, each
// (re)subscription as Resubscribed, each answered ping as Heard. A
// subscription that stays silent past Silence is closed and made again on
// a new connection; a refused one is retried after Backoff.
func (b *InvalidationBus) Listen(ctx context.Context, l InvalidationListener) {
	for ctx.Err() == nil {
		b.listenOnce(ctx, l)
	}
}

// listenOnce runs one subscription until ctx is done or it goes silent.
func (b *InvalidationBus) listenOnce(ctx context.Context, l InvalidationListener) {
	ps := b.client.Subscribe(ctx, b.channel)
	defer ps.Close()
	pctx, stop := context.WithCancel(ctx)
	defer stop()
	go b.ping(pctx, ps)
	last, pause := time.Now(), b.opts.Backoff
	for ctx.Err() == nil && time.Since(last) < b.opts.Silence {
		msg, err := ps.ReceiveTimeout(ctx, b.opts.Ping)
		if err != nil {
			if !isTimeout(err) && ctx.Err() == nil {
				sleepCtx(ctx, pause) // go-redis reconnects on the next read
				pause = min(2*pause, maxResubscribePause)
			}
			continue
		}
		last, pause = time.Now(), b.opts.Backoff
		b.deliver(l, msg)
	}
}

// maxResubscribePause caps the pause between attempts to reach Redis again: while
// it is unreachable the caches are bypassed, so retrying faster only adds
// to the log.
const maxResubscribePause = 2 * time.Second

func sleepCtx(ctx context.Context, d time.Duration) {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
	case <-t.C:
	}
}

func (b *InvalidationBus) deliver(l InvalidationListener, msg any) {
	switch m := msg.(type) {
	case *goredis.Subscription:
		if m.Kind == "subscribe" {
			l.Resubscribed()
		}
	case *goredis.Message:
		l.Drop(strings.Split(m.Payload, "\n"))
	case *goredis.Pong:
		if d, err := strconv.ParseInt(m.Payload, 10, 64); err == nil {
			l.Heard(b.start.Add(time.Duration(d)))
		}
	}
}

// ping sends a ping carrying its send time every Ping until ctx is done.
func (b *InvalidationBus) ping(ctx context.Context, ps *goredis.PubSub) {
	t := time.NewTicker(b.opts.Ping)
	defer t.Stop()
	for {
		_ = ps.Ping(ctx, strconv.FormatInt(int64(time.Since(b.start)), 10))
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
	}
}

// String names the bus for logs.
func (b *InvalidationBus) String() string {
	return fmt.Sprintf("redis invalidation bus on %s", b.channel)
}
