package main

import (
	"net"
	"sync"
	"time"
)

// trackingListener remembers open connections so that a graceful shutdown
// can wake the idle keep-alive ones. hertz closes a connection after its
// current request once it stops running, but a connection idling between
// requests would hold the shutdown until its idle timeout.
type trackingListener struct {
	net.Listener
	limits edgeLimits
	mu     sync.Mutex
	conns  map[*trackedConn]struct{}
}

func newTrackingListener(ln net.Listener, limits edgeLimits) *trackingListener {
	return &trackingListener{Listener: ln, limits: limits, conns: map[*trackedConn]struct{}{}}
}

// Accept wraps each connection so that closing it forgets it, under the
// edge's header deadline.
func (l *trackingListener) Accept() (net.Conn, error) {
	c, err := l.Listener.Accept()
	if err != nil {
		return nil, err
	}
	tc := &trackedConn{Conn: newEdgeConn(c, l.limits), owner: l}
	l.mu.Lock()
	l.conns[tc] = struct{}{}
	l.mu.Unlock()
	return tc, nil
}

// wakeIdle ends the pending reads of every connection: idle ones close at
// once, busy ones finish their request first (reads only are cut short).
func (l *trackingListener) wakeIdle() {
	l.mu.Lock()
	defer l.mu.Unlock()
	for c := range l.conns {
		_ = c.SetReadDeadline(time.Now())
	}
}

type trackedConn struct {
	net.Conn
	owner *trackingListener
	once  sync.Once
}

func (c *trackedConn) Close() error {
	c.once.Do(func() {
		c.owner.mu.Lock()
		delete(c.owner.conns, c)
		c.owner.mu.Unlock()
	})
	return c.Conn.Close()
}
