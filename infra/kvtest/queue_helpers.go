package kvtest

import (
	"bytes"
	"context"
	"fmt"
	"sync"
	"testing"
	"time"
)

type handler = func(ctx context.Context, msg Message) error

// consume runs Consume in the background. The returned stop (also run at
// cleanup) cancels it and checks that it returned nil.
func consume(t *testing.T, q Queue, topic, group, name string, opts ConsumeOptions, h handler) (stop func()) {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- q.Consume(ctx, topic, group, name, opts, h) }()
	var once sync.Once
	stop = func() {
		once.Do(func() {
			cancel()
			select {
			case err := <-done:
				if err != nil {
					t.Errorf("consume %s/%s as %s returned %v", topic, group, name, err)
				}
			case <-time.After(Patience):
				t.Errorf("consume %s/%s as %s did not return after cancel", topic, group, name)
			}
		})
	}
	t.Cleanup(stop)
	return stop
}

// recorder remembers every delivery and acknowledges it.
type recorder struct {
	mu   sync.Mutex
	seen map[string][]Message
}

func newRecorder() *recorder { return &recorder{seen: make(map[string][]Message)} }

func (r *recorder) handle(_ context.Context, msg Message) error {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.seen[msg.ID] = append(r.seen[msg.ID], msg)
	return nil
}

func (r *recorder) distinct() int {
	r.mu.Lock()
	defer r.mu.Unlock()
	return len(r.seen)
}

func (r *recorder) deliveries(id string) []Message {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]Message(nil), r.seen[id]...)
}

func publishN(t *testing.T, q Queue, topic string, n int) map[string][]byte {
	t.Helper()
	sent := make(map[string][]byte, n)
	for i := range n {
		payload := fmt.Appendf(nil, "%s-%d", topic, i)
		id, err := q.Publish(background(t), topic, payload)
		noErr(t, "publish", err)
		if _, dup := sent[id]; dup || id == "" {
			t.Fatalf("publish returned id %q twice or empty", id)
		}
		sent[id] = payload
	}
	return sent
}

// wantEach checks that r saw each sent message exactly once, intact.
func wantEach(t *testing.T, r *recorder, sent map[string][]byte) {
	t.Helper()
	eventually(t, fmt.Sprintf("%d messages to be handled", len(sent)), func() bool {
		return r.distinct() >= len(sent)
	})
	for id, payload := range sent {
		got := r.deliveries(id)
		if len(got) != 1 || !bytes.Equal(got[0].Payload, payload) || got[0].Deliveries != 1 {
			t.Fatalf("message %s: deliveries %+v, want one of %q", id, got, payload)
		}
	}
	if n := r.distinct(); n != len(sent) {
		t.Fatalf("handled %d distinct messages, published %d", n, len(sent))
	}
}

// inflight counts handlers running at once and remembers the most.
type inflight struct {
	mu       sync.Mutex
	now, max int
}

func (f *inflight) enter() int {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.now++
	f.max = max(f.max, f.now)
	return f.now
}

func (f *inflight) leave() {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.now--
}
