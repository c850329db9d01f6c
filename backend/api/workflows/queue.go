package workflows

import (
	"sync"

	workflowapp "github.com/pergola-ai/pergola/application/workflow"
	wf "github.com/pergola-ai/pergola/workflow"
)

// EventQueue is the event sink of a streamed run: Emit never blocks the
// run (the queue grows), and the HTTP handler takes the events as it
// writes them. The chatflow handlers use it too.
type EventQueue struct {
	mu     sync.Mutex
	events []wf.Event
	done   bool
	out    *workflowapp.Outcome
	err    error
	signal chan struct{}
}

// NewEventQueue returns an empty queue.
func NewEventQueue() *EventQueue { return &EventQueue{signal: make(chan struct{}, 1)} }

// Emit adds an event of the run.
func (q *EventQueue) Emit(e wf.Event) {
	q.mu.Lock()
	q.events = append(q.events, e)
	q.mu.Unlock()
	q.wake()
}

// Finish records how the run ended.
func (q *EventQueue) Finish(out *workflowapp.Outcome, err error) {
	q.mu.Lock()
	q.done, q.out, q.err = true, out, err
	q.mu.Unlock()
	q.wake()
}

func (q *EventQueue) wake() {
	select {
	case q.signal <- struct{}{}:
	default:
	}
}

// Take returns the events so far and whether the run has ended.
func (q *EventQueue) Take() ([]wf.Event, bool) {
	q.mu.Lock()
	defer q.mu.Unlock()
	events := q.events
	q.events = nil
	return events, q.done
}

// Ready is signalled when events arrive or the run ends.
func (q *EventQueue) Ready() <-chan struct{} { return q.signal }

// Outcome is how the run ended; valid once Take reported the end.
func (q *EventQueue) Outcome() (*workflowapp.Outcome, error) {
	q.mu.Lock()
	defer q.mu.Unlock()
	return q.out, q.err
}
