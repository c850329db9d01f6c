package jsrun

import (
	"context"
	"errors"
	"time"
)

// ErrBusy is returned by runs that waited their whole time limit for a
// turn while the runner's bound on concurrent runs was reached.
var ErrBusy = errors.New("too many code nodes were running at once; this one waited its whole time limit for a turn and did not start")

// slots bounds how many runs execute at once: each holds memory up to
// the limit and a CPU, so the host's share of both stays bounded however
// many runs are asked for; the others wait their turn.
type slots chan struct{}

// acquire takes a slot, waiting at most wait or until ctx ends. Errors:
// ErrBusy, or ctx's error.
func (s slots) acquire(ctx context.Context, wait time.Duration) error {
	select {
	case s <- struct{}{}:
		return nil
	default:
	}
	t := time.NewTimer(wait)
	defer t.Stop()
	select {
	case s <- struct{}{}:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	case <-t.C:
		return ErrBusy
	}
}

func (s slots) release() { <-s }
