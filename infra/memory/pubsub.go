package memory

import (
	"context"
	"fmt"
	"sync"
)

// SubscriptionBuffer is how many messages a subscription holds for a reader
// that has not caught up. Beyond that, messages for that subscriber are
// dropped rather than stalling the publisher; redis.PubSub does the same.
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

// PubSub is an in-process, fire-and-forget fan-out: every live subscriber of
// a channel gets every message published to it, nobody gets messages
// published before they subscribed, and nothing is stored. It is safe for
// concurrent use.
type PubSub struct {
	mu   sync.RWMutex
	subs map[string]map[*memSub]struct{}
}

// NewPubSub returns a PubSub with no subscribers.
func NewPubSub() *PubSub {
	return &PubSub{subs: make(map[string]map[*memSub]struct{})}
}

// Publish hands msg to every current subscriber of channel without waiting
// for them to read it. It returns errs.ErrInvalid for an empty channel name.
func (p *PubSub) Publish(_ context.Context, channel string, msg []byte) error {
	if err := checkName("channel", channel); err != nil {
		return fmt.Errorf("publish: %w", err)
	}
	p.mu.RLock()
	defer p.mu.RUnlock()
	for s := range p.subs[channel] {
		select {
		case s.ch <- clone(msg):
		default: // the subscriber is SubscriptionBuffer messages behind
		}
	}
	return nil
}

// Subscribe starts a subscription to channel; it is live when Subscribe
// returns. ctx only bounds the call. It returns errs.ErrInvalid for an empty
// channel name.
func (p *PubSub) Subscribe(_ context.Context, channel string) (Subscription, error) {
	if err := checkName("channel", channel); err != nil {
		return nil, fmt.Errorf("subscribe: %w", err)
	}
	s := &memSub{p: p, channel: channel, ch: make(chan []byte, SubscriptionBuffer)}
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.subs[channel] == nil {
		p.subs[channel] = make(map[*memSub]struct{})
	}
	p.subs[channel][s] = struct{}{}
	return s, nil
}

type memSub struct {
	p       *PubSub
	channel string
	ch      chan []byte
	once    sync.Once
}

func (s *memSub) C() <-chan []byte { return s.ch }

func (s *memSub) Close() error {
	s.once.Do(func() {
		s.p.mu.Lock()
		defer s.p.mu.Unlock()
		delete(s.p.subs[s.channel], s)
		if len(s.p.subs[s.channel]) == 0 {
			delete(s.p.subs, s.channel)
		}
		close(s.ch) // no Publish can be sending: they hold the read lock
	})
	return nil
}
