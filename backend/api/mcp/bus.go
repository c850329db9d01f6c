package mcp

import (
	"context"
	"encoding/json"
	"log/slog"
	"time"
)

// Bus carries, between the processes sharing sessions, the cancellations
// of tool calls and the ends of sessions (memory.PubSub, redis.PubSub).
type Bus interface {
	Publish(ctx context.Context, channel string, msg []byte) error
	Subscribe(ctx context.Context, channel string) (Subscription, error)
}

// Subscription is a live subscription of a Bus; an alias of an unnamed
// interface, as the memory and Redis pub/sub declare theirs.
type Subscription = interface {
	C() <-chan []byte
	Close() error
}

// busChannel is the one channel every process listens on.
const busChannel = "mcp"

// busRetry is how long a process waits before subscribing again when the
// bus refused.
const busRetry = 2 * time.Second

// event is a message on the bus: a call cancelled (its key), a session
// that ended (its id), or replies a client sent for a session (its id,
// the POST's body and protocol version).
type event struct {
	Cancel  string `json:"cancel,omitempty"`
	Ended   string `json:"ended,omitempty"`
	Reply   string `json:"reply,omitempty"`
	Body    []byte `json:"body,omitempty"`
	Version string `json:"version,omitempty"`
}

// publish sends e to every process; a failure is logged, as the local
// part of what e says is already done.
func (s *sessions) publish(ctx context.Context, e event) {
	if s.bus == nil {
		return
	}
	b, _ := json.Marshal(e)
	ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), storeTimeout)
	defer cancel()
	if err := s.bus.Publish(ctx, busChannel, b); err != nil {
		s.log.WarnContext(ctx, "mcp: could not tell the other processes", "event", string(b), "err", err)
	}
}

// listen applies what the other processes publish until ctx ends. It
// subscribes before it returns, so nothing published after is missed; when
// the bus refuses, it logs and tries again in the background.
func (s *sessions) listen(ctx context.Context, log *slog.Logger) {
	if s.bus == nil {
		return
	}
	sub, err := s.bus.Subscribe(ctx, busChannel)
	go func() {
		for {
			if err == nil {
				s.consume(ctx, sub) // until ctx ends or the subscription does
				_ = sub.Close()
			} else {
				log.WarnContext(ctx, "mcp: cannot hear the other processes (cancellations, answers, ended sessions)", "err", err)
			}
			select {
			case <-ctx.Done():
				return
			case <-time.After(busRetry):
			}
			sub, err = s.bus.Subscribe(ctx, busChannel)
		}
	}()
}

func (s *sessions) consume(ctx context.Context, sub Subscription) {
	for {
		select {
		case <-ctx.Done():
			return
		case msg, ok := <-sub.C():
			if !ok {
				return
			}
			var e event
			if json.Unmarshal(msg, &e) != nil {
				continue
			}
			if e.Cancel != "" {
				s.calls.cancelled(e.Cancel)
			}
			if e.Ended != "" {
				s.endLocal(e.Ended)
			}
			if e.Reply != "" {
				s.deliver(e)
			}
		}
	}
}
