// Package channelfake holds what the fake platforms of the channel tests
// share: the journal of the calls a fake received and of the failures a
// test asked it to answer next.
package channelfake

import "sync"

// Journal records calls and queues failures of type F. It is safe for
// concurrent use; the zero value is ready.
type Journal[F any] struct {
	mu    sync.Mutex
	calls []string
	fail  []F
	down  *F // answered to every call while set
}

// Record notes one call received.
func (j *Journal[F]) Record(call string) {
	j.mu.Lock()
	defer j.mu.Unlock()
	j.calls = append(j.calls, call)
}

// Calls lists the calls received, in order.
func (j *Journal[F]) Calls() []string {
	j.mu.Lock()
	defer j.mu.Unlock()
	return append([]string(nil), j.calls...)
}

// Fail queues f as the answer of a coming call.
func (j *Journal[F]) Fail(f F) {
	j.mu.Lock()
	defer j.mu.Unlock()
	j.fail = append(j.fail, f)
}

// Down makes every call answer f until Up, as a platform that is down.
func (j *Journal[F]) Down(f F) {
	j.mu.Lock()
	defer j.mu.Unlock()
	j.down = &f
}

// Up ends Down.
func (j *Journal[F]) Up() {
	j.mu.Lock()
	defer j.mu.Unlock()
	j.down = nil
}

// Next takes the next queued failure, if any, or the failure of a
// platform that is down.
func (j *Journal[F]) Next() (F, bool) {
	j.mu.Lock()
	defer j.mu.Unlock()
	var f F
	if j.down != nil {
		return *j.down, true
	}
	if len(j.fail) == 0 {
		return f, false
	}
	f, j.fail = j.fail[0], j.fail[1:]
	return f, true
}
