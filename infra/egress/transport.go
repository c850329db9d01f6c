package egress

import (
	"fmt"
	"io"
	"net/http"
	"strings"
)

// guardedTransport checks every request, the first and each redirect,
// before the pooled transport dials, and caps every response body.
type guardedTransport struct {
	g    *Guard
	base *http.Transport
}

// RoundTrip implements http.RoundTripper.
func (t *guardedTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	if err := t.g.precheck(req.URL); err != nil {
		if req.Body != nil {
			req.Body.Close()
		}
		return nil, err
	}
	resp, err := t.base.RoundTrip(req)
	if err != nil {
		return nil, err
	}
	resp.Body = &cappedBody{rc: resp.Body, left: t.g.cfg.MaxResponseBytes, max: t.g.cfg.MaxResponseBytes}
	return resp, nil
}

// cappedBody fails with ErrTooLarge once more than max bytes were read.
type cappedBody struct {
	rc   io.ReadCloser
	left int64 // bytes still allowed; negative once the cap was passed
	max  int64
}

// Read implements io.Reader.
func (b *cappedBody) Read(p []byte) (int, error) {
	if b.left < 0 {
		return 0, b.tooLarge()
	}
	if int64(len(p)) > b.left+1 {
		p = p[:b.left+1] // one byte more than allowed reveals an overflow
	}
	n, err := b.rc.Read(p)
	if int64(n) > b.left {
		n = int(b.left)
		b.left = -1
		return n, b.tooLarge()
	}
	b.left -= int64(n)
	return n, err
}

// Close implements io.Closer.
func (b *cappedBody) Close() error { return b.rc.Close() }

func (b *cappedBody) tooLarge() error {
	return fmt.Errorf("%w: more than %d bytes", ErrTooLarge, b.max)
}

// checkRedirect caps the redirects, checks the new destination like the
// first, and keeps credentials from following a redirect to another host.
func (g *Guard) checkRedirect(req *http.Request, via []*http.Request) error {
	if g.cfg.MaxRedirects < 0 {
		return http.ErrUseLastResponse
	}
	if len(via) > g.cfg.MaxRedirects {
		return fmt.Errorf("%w: stopped after %d", ErrTooManyRedirects, g.cfg.MaxRedirects)
	}
	if err := g.precheck(req.URL); err != nil {
		return err
	}
	if !sameHost(req.URL.Hostname(), via[0].URL.Hostname()) {
		keepSafeHeaders(req.Header)
	}
	return nil
}

func sameHost(a, b string) bool { return normalizeHost(a) == normalizeHost(b) }

// keepSafeHeaders drops every header that could carry a credential (API
// keys in custom headers, which net/http would forward) and keeps only
// content negotiation and the user agent.
func keepSafeHeaders(h http.Header) {
	for key := range h {
		switch strings.ToLower(key) {
		case "accept", "accept-language", "accept-encoding", "user-agent", "content-type":
		default:
			delete(h, key)
		}
	}
}
