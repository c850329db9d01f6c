package pyrun

import "time"

// waiter is a run that found no warm sandbox it may take: it started one
// of its own and takes whichever is ready first, its own or one the pool
// was starting. The one it does not take goes to the pool.
type waiter struct {
	mayReserve bool         // its workspace runs fewer than its share
	got        chan started // buffered: sent to once, under the pool's lock
}

// started is a sandbox that started, or why it did not.
type started struct {
	w   *worker
	err error
}

// place gives a sandbox the pool started to the oldest waiter that may
// take it, or keeps it warm. Below the reserve, only a waiter whose
// workspace runs fewer than its share may take it. p.mu is held.
func (p *pool) place(w *worker, now time.Time) {
	if i := p.taker(); i >= 0 {
		wt := p.waiting[i]
		p.waiting = append(p.waiting[:i], p.waiting[i+1:]...)
		wt.got <- started{w: w}
		return
	}
	p.idle = append(p.idle, idleWorker{w: w, since: now})
}

// taker is the index of the waiter place gives a sandbox to, or -1.
// p.mu is held.
func (p *pool) taker() int {
	for i, wt := range p.waiting {
		if wt.mayReserve || len(p.idle) >= p.lim.Warm {
			return i
		}
	}
	return -1
}

// startFor starts wt's own sandbox: wt takes it unless the pool gave wt
// one first; then it goes to the pool like the pool's own, or ends when
// the pool is full.
func (r *Runner) startFor(wt *waiter) {
	w, err := r.start()
	p := r.pool
	p.mu.Lock()
	defer p.mu.Unlock()
	for i, x := range p.waiting {
		if x == wt {
			p.waiting = append(p.waiting[:i], p.waiting[i+1:]...)
			wt.got <- started{w: w, err: err}
			return
		}
	}
	if err != nil {
		return // wt has one: the error concerns no run
	}
	if p.closed || (p.taker() < 0 && len(p.idle)+p.starting >= p.lim.WarmMax) {
		go w.kill()
		return
	}
	p.place(w, time.Now())
}
