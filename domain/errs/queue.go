package errs

import "fmt"

// QueueFullError reports a message a work queue refused because its
// backlog (messages published and not yet acknowledged by every consumer
// group) reached its bound. Nothing was queued, so nothing is lost: the
// caller may publish again once consumers have caught up. It matches
// ErrRateLimited under errors.Is, so the API answers 429.
type QueueFullError struct {
	Topic string
	Limit int64 // the backlog bound that was reached
}

func (e *QueueFullError) Error() string {
	return fmt.Sprintf("queue %s is full: it holds its limit of %d unhandled messages", e.Topic, e.Limit)
}

// Is makes a QueueFullError match ErrRateLimited.
func (e *QueueFullError) Is(target error) bool { return target == ErrRateLimited }
