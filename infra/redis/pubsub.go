package redis

import (
	"context"
	"fmt"
	"sync"

	goredis "github.com/redis/go-redis/v9"
)

// SubscriptionBuffer is how many messages a subscription holds for a reader
// that has not caught up. Beyond that, messages for that subscriber are
// dropped rather than backing up into Redis; memory.PubSub does the same.
const SubscriptionBuffer = 256

// Subscription is a live subscription to one channel. C yields the messages
// published after Subscribe returned and is closed after Close. Close is
// idempotent and returns nil.
//
// Subscription aliases an unnamed interface type, so memory.Subscription and
// redis.Subscription are the same type.
type Subscription = interface {
	C() <-chan []byte
	Close() error
}

// PubSub is a fire-and-forget fan-out across processes on Redis PUBLISH and
// SUBSCRIBE: every live subscriber of a channel, in any process, gets every
// message published to it; nothing is stored, and messages published while
// a subscriber's connection is being re-established are lost. It is safe
// for concurrent use.
type PubSub struct {
	client goredis.UniversalClient
	keys   keyspace
}

// NewPubSub returns a PubSub whose channels are named prefix + "pubsub:" +
// channel.
func NewPubSub(client goredis.UniversalClient, prefix string) *PubSub {
	return &PubSub{client: client, keys: keyspace(prefix)}
}

// Publish sends msg to every current subscriber of channel. An empty channel
// name returns errs.ErrInvalid; Redis failures match errs.ErrUnavailable.
func (p *PubSub) Publish(ctx context.Context, channel string, msg []byte) error {
	if err := checkName("channel", channel); err != nil {
		return fmt.Errorf("publish: %w", err)
	}
	if err := p.client.Publish(ctx, p.keys.name("pubsub", channel), msg).Err(); err != nil {
		return fail("publish", err)
	}
	return nil
}

// Subscribe starts a subscription to channel and returns once Redis has
// confirmed it, so it receives every message published after Subscribe
// returns. It holds a connection of its own until Close. An empty channel
// name returns errs.ErrInvalid; Redis failures match errs.ErrUnavailable.
func (p *PubSub) Subscribe(ctx context.Context, channel string) (Subscription, error) {
	if err := checkName("channel", channel); err != nil {
		return nil, fmt.Errorf("subscribe: %w", err)
	}
	ps := p.client.Subscribe(ctx, p.keys.name("pubsub", channel))
	if _, err := ps.Receive(ctx); err != nil { // the subscribe confirmation
		_ = ps.Close()
		return nil, fail("subscribe", err)
	}
	s := &redisSub{ps: ps, out: make(chan []byte, SubscriptionBuffer)}
	go s.forward(ps.Channel())
	return s, nil
}

type redisSub struct {
	ps   *goredis.PubSub
	out  chan []byte
	once sync.Once
}

// forward copies messages until go-redis closes in, which it does after
// Close; a full buffer drops the message instead of blocking.
func (s *redisSub) forward(in <-chan *goredis.Message) {
	defer close(s.out)
	for m := range in {
		select {
		case s.out <- []byte(m.Payload):
		default:
		}
	}
}

func (s *redisSub) C() <-chan []byte { return s.out }

func (s *redisSub) Close() error {
	s.once.Do(func() { _ = s.ps.Close() })
	return nil
}
