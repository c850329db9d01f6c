package pyrun

import (
	"sync"
	"time"
)

// zygotes are the workspaces' fork servers (zygote.go), one per workspace
// that runs Python, at most Limits.Zygotes. A workspace's first run starts
// its server and, like every run that finds it not ready, takes a worker
// of the pool; later runs fork. A server no run used for Limits.WarmIdle
// is ended, and so is the least recently used idle one when a workspace
// needs one and there are Limits.Zygotes (when all are busy, that
// workspace's runs take workers). One that crashed is forgotten, and the
// next run of its workspace starts another. After a server fails to start
// no other starts for zygotePause: the pool serves alone, as it does on a
// machine that cannot pass descriptors.
type zygotes struct {
	max  int // -1: none
	idle time.Duration

	mu     sync.Mutex
	m      map[int64]*zygote
	pause  time.Time // no start before
	closed bool
}

// zygotePause is how long no fork server starts after one failed to.
const zygotePause = time.Minute

// get returns tenant's server, counted running, when it is ready; and a
// server to start, already registered, when tenant has none.
func (zs *zygotes) get(tenant int64, now time.Time) (ready, start *zygote, ended []*zygote) {
	zs.mu.Lock()
	defer zs.mu.Unlock()
	if zs.max < 0 || zs.closed {
		return nil, nil, nil
	}
	if z := zs.m[tenant]; z != nil {
		if !z.ready || !z.alive() {
			return nil, nil, nil
		}
		z.running++
		z.used = now
		return z, nil, nil
	}
	if now.Before(zs.pause) {
		return nil, nil, nil
	}
	if len(zs.m) >= zs.max {
		lru := zs.leastUsed()
		if lru == nil {
			return nil, nil, nil
		}
		ended = zs.remove(lru)
	}
	start = &zygote{tenant: tenant, used: now}
	zs.m[tenant] = start
	return nil, start, ended
}

// leastUsed is the ready server no run uses that was used longest ago, or
// nil. zs.mu is held.
func (zs *zygotes) leastUsed() *zygote {
	var lru *zygote
	for _, z := range zs.m {
		if z.ready && z.running == 0 && (lru == nil || z.used.Before(lru.used)) {
			lru = z
		}
	}
	return lru
}

// remove takes z out of the registry; it returns z to be ended when no run
// uses it. zs.mu is held.
func (zs *zygotes) remove(z *zygote) []*zygote {
	if zs.m[z.tenant] == z {
		delete(zs.m, z.tenant)
	}
	z.gone = true
	if z.running == 0 && z.ready {
		return []*zygote{z}
	}
	return nil
}

// started records how z's start went: ready, or forgotten (and the
// registry paused) when it failed. It returns z when it is to end at once.
func (zs *zygotes) started(z *zygote, err error, now time.Time) []*zygote {
	zs.mu.Lock()
	defer zs.mu.Unlock()
	if err != nil {
		if zs.m[z.tenant] == z {
			delete(zs.m, z.tenant)
		}
		zs.pause = now.Add(zygotePause)
		return nil
	}
	z.ready, z.used = true, now
	if zs.closed || z.gone {
		return []*zygote{z}
	}
	return nil
}

// leave counts a run of z as ended; it returns z when it is to end now.
func (zs *zygotes) leave(z *zygote, now time.Time) []*zygote {
	zs.mu.Lock()
	defer zs.mu.Unlock()
	z.running--
	z.used = now
	if z.gone && z.running == 0 {
		return []*zygote{z}
	}
	return nil
}

// drop takes z out after it failed or ended; it returns z when it is to
// end now.
func (zs *zygotes) drop(z *zygote) []*zygote {
	zs.mu.Lock()
	defer zs.mu.Unlock()
	return zs.remove(z)
}

// expired takes out the servers no run used for zs.idle, and all of them
// once closed; it returns those to end now.
func (zs *zygotes) expired(now time.Time, closing bool) []*zygote {
	zs.mu.Lock()
	defer zs.mu.Unlock()
	zs.closed = zs.closed || closing
	var out []*zygote
	for _, z := range zs.m {
		if zs.closed || (z.ready && z.running == 0 && now.Sub(z.used) >= zs.idle) {
			out = append(out, zs.remove(z)...)
		}
	}
	return out
}

// fromZygote returns a child of tenant's fork server to serve a run, or
// nil when tenant has none ready (one is started for its later runs) or
// the fork failed (the server is then ended once no run uses it).
func (r *Runner) fromZygote(tenant int64, deadline time.Time) *child {
	z, start, ended := r.zygotes.get(tenant, time.Now())
	endAll(ended)
	if start != nil {
		go r.launch(start)
	}
	if z == nil {
		return nil
	}
	c, err := z.fork(deadline)
	if err != nil {
		r.log.Warn("a Python fork server did not fork; its workspace's runs take sandboxes of the pool until another starts", "err", err)
		endAll(r.zygotes.drop(z))
		endAll(r.zygotes.leave(z, time.Now()))
		return nil
	}
	c.done = func() { endAll(r.zygotes.leave(z, time.Now())) }
	return c
}

// launch starts z, then forgets it when it ends.
func (r *Runner) launch(z *zygote) {
	err := z.start(r.args())
	if err != nil {
		r.log.Warn("a Python fork server did not start; runs take sandboxes of the pool", "err", err)
	}
	endAll(r.zygotes.started(z, err, time.Now()))
	if err == nil {
		<-z.exited
		endAll(r.zygotes.drop(z))
	}
}

// endAll ends fork servers, each in the background.
func endAll(zs []*zygote) {
	for _, z := range zs {
		go z.kill()
	}
}
