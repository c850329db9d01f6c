package kvtest

import (
	"context"
	"fmt"
	"testing"
)

// Subscription is memory.Subscription and redis.Subscription.
type Subscription = interface {
	C() <-chan []byte
	Close() error
}

// PubSub is the contract of memory.PubSub and redis.PubSub.
type PubSub interface {
	Publish(ctx context.Context, channel string, msg []byte) error
	Subscribe(ctx context.Context, channel string) (Subscription, error)
}

// TestPubSub runs the PubSub contract; newPubSub returns a PubSub with no
// subscribers for one subtest.
func TestPubSub(t *testing.T, newPubSub func(t *testing.T) PubSub) {
	cases := []struct {
		name string
		run  func(t *testing.T, p PubSub)
	}{
		{"every subscriber gets every message", pubsubFanOut},
		{"channels are separate", pubsubChannels},
		{"closed subscription stops", pubsubClose},
		{"publish without subscribers", pubsubNobody},
		{"invalid arguments", pubsubInvalid},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			tc.run(t, newPubSub(t))
		})
	}
}

func subscribe(t *testing.T, p PubSub, channel string) Subscription {
	t.Helper()
	s, err := p.Subscribe(background(t), channel)
	noErr(t, "subscribe "+channel, err)
	t.Cleanup(func() { _ = s.Close() })
	return s
}

func wantMessage(t *testing.T, s Subscription, want string) {
	t.Helper()
	got, ok := receive(t, fmt.Sprintf("message %q", want), s.C())
	if !ok || string(got) != want {
		t.Fatalf("received %q (open %v), want %q", got, ok, want)
	}
}

func pubsubFanOut(t *testing.T, p PubSub) {
	s1, s2 := subscribe(t, p, "run"), subscribe(t, p, "run")
	const n = 20
	for i := range n {
		noErr(t, "publish", p.Publish(background(t), "run", fmt.Appendf(nil, "event %d", i)))
	}
	for i := range n {
		wantMessage(t, s1, fmt.Sprintf("event %d", i))
		wantMessage(t, s2, fmt.Sprintf("event %d", i))
	}
}

func pubsubChannels(t *testing.T, p PubSub) {
	a := subscribe(t, p, "a")
	noErr(t, "publish to b", p.Publish(background(t), "b", []byte("for b")))
	noErr(t, "publish to a", p.Publish(background(t), "a", []byte("for a")))
	wantMessage(t, a, "for a")
}

func pubsubClose(t *testing.T, p PubSub) {
	closed, open := subscribe(t, p, "run"), subscribe(t, p, "run")
	noErr(t, "publish", p.Publish(background(t), "run", []byte("before")))
	wantMessage(t, closed, "before")
	noErr(t, "close", closed.Close())
	noErr(t, "close again", closed.Close())
	noErr(t, "publish", p.Publish(background(t), "run", []byte("after")))
	wantMessage(t, open, "before")
	wantMessage(t, open, "after")
	for {
		got, ok := receive(t, "the closed subscription's channel to close", closed.C())
		if !ok {
			return
		}
		if string(got) == "after" {
			t.Fatal("a closed subscription received a message published after Close")
		}
	}
}

func pubsubNobody(t *testing.T, p PubSub) {
	noErr(t, "publish with no subscribers", p.Publish(background(t), "quiet", []byte("x")))
}

func pubsubInvalid(t *testing.T, p PubSub) {
	wantInvalid(t, "publish to an empty channel", p.Publish(background(t), "", []byte("x")))
	_, err := p.Subscribe(background(t), "")
	wantInvalid(t, "subscribe to an empty channel", err)
}
