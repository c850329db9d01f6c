package pyrun

import (
	"context"
	"errors"
	"sync"
	"time"
)

// ErrBusy is returned by runs that waited their whole time limit for a
// turn while Limits.Parallel sandboxes were running.
var ErrBusy = errors.New("too many Python code nodes were running at once; this one waited its whole time limit for a turn and did not start")

// pool holds the warm sandboxes and bounds the running ones.
type pool struct {
	warm  chan *worker  // started, waiting for a job
	slots chan struct{} // one per running sandbox
	mu    sync.Mutex
	// starting counts sandboxes being started for the pool, so that
	// warm + starting never exceeds Warm however many runs take at once.
	starting int
	closed   bool
}

func newPool(lim Limits) *pool {
	return &pool{warm: make(chan *worker, lim.Warm), slots: make(chan struct{}, lim.Parallel)}
}

// acquire takes a turn to run, waiting at most wait or until ctx ends.
func (p *pool) acquire(ctx context.Context, wait time.Duration) error {
	select {
	case p.slots <- struct{}{}:
		return nil
	default:
	}
	t := time.NewTimer(wait)
	defer t.Stop()
	select {
	case p.slots <- struct{}{}:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	case <-t.C:
		return ErrBusy
	}
}

func (p *pool) release() { <-p.slots }

// take returns a warm worker, or starts one, and refills the pool in the
// background.
func (r *Runner) take() (*worker, error) {
	defer r.refill()
	for {
		select {
		case w := <-r.pool.warm:
			if w.alive() {
				return w, nil
			}
			r.log.Warn("a warm Python sandbox had died; starting another")
		default:
			return r.start()
		}
	}
}

// refill starts the sandboxes the pool lacks, each in the background.
func (r *Runner) refill() {
	p := r.pool
	p.mu.Lock()
	n := cap(p.warm) - len(p.warm) - p.starting
	if p.closed || n <= 0 {
		p.mu.Unlock()
		return
	}
	p.starting += n
	p.mu.Unlock()
	for range n {
		go r.startWarm()
	}
}

func (r *Runner) startWarm() {
	w, err := r.start()
	p := r.pool
	p.mu.Lock()
	defer p.mu.Unlock()
	p.starting--
	if err != nil {
		r.log.Warn("a Python sandbox did not start", "err", err)
		return
	}
	if p.closed {
		go w.kill()
		return
	}
	p.warm <- w // room: counted in starting
}

// Close ends the warm sandboxes; runs under way finish. Later runs start
// their sandbox cold.
func (r *Runner) Close() {
	p := r.pool
	p.mu.Lock()
	p.closed = true
	p.mu.Unlock()
	for {
		select {
		case w := <-p.warm:
			w.kill()
		default:
			return
		}
	}
}
