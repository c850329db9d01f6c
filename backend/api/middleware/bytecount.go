package middleware

import (
	"sync"

	"github.com/cloudwego/hertz/pkg/app"
	"github.com/cloudwego/hertz/pkg/network"
)

// countingConn counts the body bytes of a streamed answer. A streamed
// answer (SSE) goes out while the handler runs, through hertz's chunked
// writer, and never fills Response.Body, so the access log reads its size
// here. That writer asks the connection for one buffer for the headers,
// then one per chunk (size line, data, CRLF); countingConn takes the data
// length back out of each chunk's buffer size.
type countingConn struct {
	network.Conn
	mu      sync.Mutex
	headers bool // the headers' buffer was seen
	body    int
}

// Malloc counts a buffer the chunked writer fills.
func (c *countingConn) Malloc(n int) ([]byte, error) {
	b, err := c.Conn.Malloc(n)
	if err == nil {
		c.mu.Lock()
		if c.headers {
			c.body += chunkData(n)
		}
		c.headers = true
		c.mu.Unlock()
	}
	return b, err
}

func (c *countingConn) size() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.body
}

// chunkData is the data length of a chunk written in one buffer of size
// sz: the hex length, CRLF, the data, CRLF (the last chunk, "0\r\n", has
// none).
func chunkData(sz int) int {
	for digits := 1; digits <= 16; digits++ {
		n := sz - digits - 4
		if n > 0 && hexLen(n) == digits {
			return n
		}
	}
	return 0
}

func hexLen(n int) int {
	d := 1
	for n >= 16 {
		n >>= 4
		d++
	}
	return d
}

// countWrites puts a countingConn in front of c's connection and returns
// a function that restores it and answers the size of the response body:
// Response.Body for a buffered answer, what was streamed for a streamed
// one.
func countWrites(c *app.RequestContext) func() int {
	orig := c.GetConn()
	if orig == nil {
		return func() int { return len(c.Response.Body()) }
	}
	cc := &countingConn{Conn: orig}
	c.SetConn(cc)
	return func() int {
		c.SetConn(orig)
		if c.Response.GetHijackWriter() == nil {
			return len(c.Response.Body())
		}
		return cc.size()
	}
}
