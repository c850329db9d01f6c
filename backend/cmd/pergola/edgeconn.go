package main

import (
	"bytes"
	"encoding/json"
	"net"
	"strconv"
	"sync"
	"time"
)

// edgeLimits are the connection-level limits of the HTTP edge.
type edgeLimits struct {
	header  time.Duration // from a request's first byte to the end of its header
	request time.Duration // reading a whole request, when hertz sets no deadline of its own
	maxBody int           // PERGOLA_MAX_BODY_BYTES, named in the rewritten 413
}

// edgeConn bounds how long a client may take to send a request header.
// hertz's standard transport sets no read deadline at all on a
// connection's first request, and on later ones one deadline for header and
// body together; a header deadline is what stops a slowloris client without
// cutting slow uploads. The connection watches the bytes it reads for the
// blank line that ends a header: from the first byte of a request to that
// line the read deadline is at most the header timeout. hertz's idle wait
// between requests marks the start of the next header (this relies on
// WithSenseClientDisconnection, whose watch hertz ends before that wait).
//
// It also turns the plain-text errors hertz writes before any handler runs
// (413 for a body over its hard limit, 431 for a header over
// PERGOLA_MAX_HEADER_BYTES, 400 and 408 for a request it cannot read) into
// the JSON envelope every other answer has. hertz offers no hook for these
// answers, so they are recognised by their exact text.
type edgeConn struct {
	net.Conn
	lim edgeLimits

	mu        sync.Mutex
	inHeader  bool
	headerEnd time.Time // zero until the header's first byte arrived
	outer     time.Time // the deadline hertz (or the request bound) asked for
	newlines  int       // line ends seen in a row, ignoring '\r'
	waiting   bool      // the last deadline hertz set was a future one
}

func newEdgeConn(c net.Conn, lim edgeLimits) *edgeConn {
	now := time.Now()
	e := &edgeConn{Conn: c, lim: lim, inHeader: true, headerEnd: now.Add(lim.header), outer: now.Add(lim.request)}
	_ = e.Conn.SetReadDeadline(e.effective())
	return e
}

// Read reads and tracks where the current header ends.
func (e *edgeConn) Read(p []byte) (int, error) {
	n, err := e.Conn.Read(p)
	if n > 0 {
		e.saw(p[:n])
	}
	return n, err
}

// saw notes bytes read: the first byte of a header starts its timer, the
// blank line that ends it lifts the header deadline.
func (e *edgeConn) saw(b []byte) {
	e.mu.Lock()
	defer e.mu.Unlock()
	if !e.inHeader {
		return
	}
	if e.headerEnd.IsZero() {
		e.headerEnd = time.Now().Add(e.lim.header)
	}
	for _, c := range b {
		switch c {
		case '\r':
		case '\n':
			e.newlines++
		default:
			e.newlines = 0
		}
		if e.newlines == 2 {
			e.endHeader()
			break
		}
	}
	_ = e.Conn.SetReadDeadline(e.effective())
}

// endHeader switches to reading the body under the request bound; e.mu is
// held.
func (e *edgeConn) endHeader() {
	e.inHeader, e.newlines = false, 0
	if e.outer.IsZero() {
		e.outer = time.Now().Add(e.lim.request)
	}
}

// SetReadDeadline records hertz's deadline. Between two requests hertz
// ends the previous one's disconnect watch (a deadline in the past), then
// waits for the next (its idle timeout), then bounds reading it (its read
// timeout). The first future deadline after a past or cleared one thus
// starts the watch for a header, whose timer starts with the next byte
// read; the second only moves hertz's own bound, so a header that already
// ended is not watched again over the body.
func (e *edgeConn) SetReadDeadline(t time.Time) error {
	e.mu.Lock()
	defer e.mu.Unlock()
	future := t.After(time.Now())
	if future && !e.waiting {
		e.inHeader, e.headerEnd, e.newlines = true, time.Time{}, 0
	}
	e.outer, e.waiting = t, future
	return e.Conn.SetReadDeadline(e.effective())
}

// SetDeadline sets both deadlines, the read one through SetReadDeadline.
func (e *edgeConn) SetDeadline(t time.Time) error {
	if err := e.Conn.SetWriteDeadline(t); err != nil {
		return err
	}
	return e.SetReadDeadline(t)
}

// effective is the earlier of hertz's deadline and the header deadline;
// e.mu is held.
func (e *edgeConn) effective() time.Time {
	if !e.inHeader || e.headerEnd.IsZero() {
		return e.outer
	}
	if e.outer.IsZero() || e.headerEnd.Before(e.outer) {
		return e.headerEnd
	}
	return e.outer
}

// Write passes answers through, turning hertz's own plain-text refusals
// into JSON envelopes.
func (e *edgeConn) Write(p []byte) (int, error) {
	if alt := e.envelopeFor(p); alt != nil {
		if _, err := e.Conn.Write(alt); err != nil {
			return 0, err
		}
		return len(p), nil
	}
	return e.Conn.Write(p)
}

// hertzRefusals are the bodies hertz writes when it refuses a request
// before any handler runs, and what the envelope says instead.
var hertzRefusals = map[string]struct {
	status int
	code   int
	msg    func(edgeLimits) string
}{
	"Request Entity Too Large": {413, 4001, func(l edgeLimits) string {
		return "request body is larger than the limit of " + strconv.Itoa(l.maxBody) + " bytes (PERGOLA_MAX_BODY_BYTES)"
	}},
	"Request Header Fields Too Large": {431, 4000, func(edgeLimits) string {
		return "request header is larger than the limit (PERGOLA_MAX_HEADER_BYTES); send fewer or shorter headers"
	}},
	"Error when parsing request": {400, 4000, func(edgeLimits) string {
		return "the request is not valid HTTP/1.1, or its header took longer than PERGOLA_READ_HEADER_TIMEOUT to arrive"
	}},
	"Request timeout": {408, 4000, func(edgeLimits) string {
		return "the request took longer to arrive than PERGOLA_READ_HEADER_TIMEOUT (header) or PERGOLA_READ_TIMEOUT (whole request)"
	}},
}

// envelopeFor returns the JSON answer replacing a complete plain-text
// refusal of hertz in p, or nil when p is anything else.
func (e *edgeConn) envelopeFor(p []byte) []byte {
	if len(p) > 512 || !bytes.HasPrefix(p, []byte("HTTP/1.")) || !bytes.Contains(p, []byte("text/plain")) {
		return nil
	}
	_, body, ok := bytes.Cut(p, []byte("\r\n\r\n"))
	if !ok {
		return nil
	}
	r, known := hertzRefusals[string(body)]
	if !known || !bytes.HasPrefix(p[len("HTTP/1.x"):], []byte(" "+strconv.Itoa(r.status)+" ")) {
		return nil
	}
	msg, _ := json.Marshal(r.msg(e.lim))
	env := `{"code":` + strconv.Itoa(r.code) + `,"msg":` + string(msg) + `}`
	return []byte("HTTP/1.1 " + strconv.Itoa(r.status) + " " + string(body) + "\r\nContent-Type: application/json; charset=utf-8\r\n" +
		"Content-Length: " + strconv.Itoa(len(env)) + "\r\nConnection: close\r\n\r\n" + env)
}
