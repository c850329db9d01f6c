package pyrun

import "time"

// reap ends, every quarter of Limits.WarmIdle, the warm sandboxes idle
// longer than that while the pool holds more than demand asks, oldest
// first, and the fork servers no run used for that long, until Close.
func (r *Runner) reap() {
	p := r.pool
	t := time.NewTicker(max(r.lim.WarmIdle/4, 10*time.Millisecond))
	defer t.Stop()
	for {
		select {
		case <-p.stop:
			return
		case now := <-t.C:
			for _, w := range p.expired(now) {
				w.kill()
			}
			endAll(r.zygotes.expired(now, false))
		}
	}
}

// expired takes out of the pool the sandboxes reap ends.
func (p *pool) expired(now time.Time) []*worker {
	p.mu.Lock()
	defer p.mu.Unlock()
	var out []*worker
	for extra := len(p.idle) - p.target(now); extra > 0 && now.Sub(p.idle[0].since) >= p.lim.WarmIdle; extra-- {
		out = append(out, p.idle[0].w)
		p.idle = p.idle[1:]
	}
	return out
}
