package chat

import (
	"context"
	"sync"

	chatapp "github.com/pergola-ai/pergola/application/chat"
)

// queue is the sink of a streamed chat: Send never blocks the run (the
// queue grows instead), and the HTTP handler takes events as it writes.
type queue struct {
	mu     sync.Mutex
	items  []chatapp.Event
	signal chan struct{}
}

func newQueue() *queue { return &queue{signal: make(chan struct{}, 1)} }

// Send adds an event; it is called by the run.
func (q *queue) Send(e chatapp.Event) {
	q.mu.Lock()
	q.items = append(q.items, e)
	q.mu.Unlock()
	select {
	case q.signal <- struct{}{}:
	default:
	}
}

// next waits for the next event; false when ctx ends first.
func (q *queue) next(ctx context.Context) (chatapp.Event, bool) {
	for {
		q.mu.Lock()
		if len(q.items) > 0 {
			e := q.items[0]
			q.items[0] = chatapp.Event{}
			q.items = q.items[1:]
			q.mu.Unlock()
			return e, true
		}
		q.mu.Unlock()
		select {
		case <-q.signal:
		case <-ctx.Done():
			return chatapp.Event{}, false
		}
	}
}
