package main

import (
	"net"
	"strings"
	"testing"
	"time"
)

// deadlineConn is a net.Conn whose reads return the scripted chunks and
// which remembers the last read deadline set on it.
type deadlineConn struct {
	net.Conn
	chunks   [][]byte
	deadline time.Time
}

func (c *deadlineConn) Read(p []byte) (int, error) {
	n := copy(p, c.chunks[0])
	c.chunks = c.chunks[1:]
	return n, nil
}

func (c *deadlineConn) SetReadDeadline(t time.Time) error { c.deadline = t; return nil }

// TestEdgeConnFollowsHertzDeadlines replays the deadlines hertz's standard
// transport sets around two requests on one connection and checks when the
// header bound applies: from accept to the first header's end, from the
// second request's first byte to its header's end, and never over a body.
func TestEdgeConnFollowsHertzDeadlines(t *testing.T) {
	lim := edgeLimits{header: time.Second, request: time.Hour}
	raw := &deadlineConn{chunks: [][]byte{
		[]byte("POST / HTTP/1.1\r\nContent-Length: 4\r\n"), []byte("\r\nbo"), []byte("dy"),
		[]byte("GET / HT"), []byte("TP/1.1\r\n\r\n"), []byte("more body"),
	}}
	e := newEdgeConn(raw, lim)
	read := func() { _, _ = e.Read(make([]byte, 64)) }
	headerBound := func(want bool) {
		t.Helper()
		short := !raw.deadline.IsZero() && time.Until(raw.deadline) <= lim.header
		if short != want {
			t.Fatalf("deadline in %s; header bound applied: %v, want %v", time.Until(raw.deadline), short, want)
		}
	}
	headerBound(true) // accepted: the first header is due
	read()
	headerBound(true)
	read() // the header ends
	headerBound(false)
	read() // body
	headerBound(false)
	_ = e.SetReadDeadline(time.Time{})     // the handler's disconnect watch
	_ = e.SetReadDeadline(time.Unix(1, 0)) // its end
	_ = e.SetReadDeadline(time.Now().Add(time.Minute))
	headerBound(false) // idle: hertz's idle timeout only
	read()             // the second request's first bytes
	headerBound(true)
	_ = e.SetReadDeadline(time.Now().Add(time.Hour)) // hertz's read timeout
	headerBound(true)
	read() // the header ends
	headerBound(false)
	read()
	headerBound(false)
}

func TestEdgeConnRewritesOnlyHertzRefusals(t *testing.T) {
	e := &edgeConn{lim: edgeLimits{maxBody: 1024}}
	hertz413 := "HTTP/1.1 413 Request Entity Too Large\r\nServer: hertz\r\nContent-Type: text/plain; charset=utf-8\r\nContent-Length: 24\r\nConnection: close\r\n\r\nRequest Entity Too Large"
	if got := string(e.envelopeFor([]byte(hertz413))); got == "" || !strings.Contains(got, `"code":4001`) || !strings.Contains(got, "1024 bytes (PERGOLA_MAX_BODY_BYTES)") {
		t.Fatalf("hertz's 413 became %q", got)
	}
	ours := "HTTP/1.1 413 Request Entity Too Large\r\nContent-Type: application/json\r\n\r\n{\"code\":4001}"
	if e.envelopeFor([]byte(ours)) != nil {
		t.Fatal("an answer of a handler was rewritten")
	}
	plain := "HTTP/1.1 200 OK\r\nContent-Type: text/plain\r\n\r\nRequest Entity Too Large"
	if e.envelopeFor([]byte(plain)) != nil {
		t.Fatal("a 200 that happens to say the same words was rewritten")
	}
}
