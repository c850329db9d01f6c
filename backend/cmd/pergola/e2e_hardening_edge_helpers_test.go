package main

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"io"
	"net"
	"net/http"
	"strings"
	"testing"
	"time"
)

// rawRequest is one request sent exactly as given: no header is added.
type rawRequest struct {
	method, path string
	header       map[string]string
	body         io.Reader
	chunked      bool   // send the body without a length
	from         string // local IP to connect from; "" for any
}

// send makes one request over a fresh connection and decodes the answer.
func (s *testServer) send(t *testing.T, r rawRequest) reply {
	t.Helper()
	req, err := http.NewRequest(r.method, s.base+r.path, r.body)
	if err != nil {
		t.Fatal(err)
	}
	for k, v := range r.header {
		req.Header.Set(k, v)
	}
	if r.chunked {
		req.ContentLength = -1
	}
	client := &http.Client{Timeout: 30 * time.Second, Transport: &http.Transport{
		DisableKeepAlives: true, DialContext: dialFrom(r.from)}}
	resp, err := client.Do(req)
	if err != nil {
		t.Fatalf("%s %s: %v", r.method, r.path, err)
	}
	defer resp.Body.Close()
	return decodeReply(t, resp)
}

// dialFrom dials from the local IP ip (any loopback address works on
// Linux), so that the server sees another client address.
func dialFrom(ip string) func(ctx context.Context, network, addr string) (net.Conn, error) {
	d := &net.Dialer{Timeout: 5 * time.Second}
	if ip != "" {
		d.LocalAddr = &net.TCPAddr{IP: net.ParseIP(ip)}
	}
	return d.DialContext
}

func decodeReply(t *testing.T, resp *http.Response) reply {
	t.Helper()
	raw, _ := io.ReadAll(resp.Body)
	r := reply{status: resp.StatusCode, header: resp.Header}
	if !strings.Contains(resp.Header.Get("Content-Type"), "json") {
		t.Fatalf("answer %d is not JSON (%q): %.200s", resp.StatusCode, resp.Header.Get("Content-Type"), raw)
	}
	if err := json.Unmarshal(raw, &r.raw); err != nil {
		t.Fatalf("answer %d: body is not JSON: %.200s", resp.StatusCode, raw)
	}
	code, _ := r.raw["code"].(float64)
	r.code = int(code)
	r.msg, _ = r.raw["msg"].(string)
	r.data, _ = r.raw["data"].(map[string]any)
	return r
}

// sessionCookie signs the bootstrap admin in and returns the session
// cookie the console would hold.
func (s *testServer) sessionCookie(t *testing.T) string {
	t.Helper()
	resp, err := http.Post(s.base+"/api/auth/login", "application/json",
		strings.NewReader(`{"email":"admin@pergola.local","password":"admin-password"}`))
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	for _, c := range resp.Cookies() {
		if c.Name == "pergola_session" && c.Value != "" {
			return c.Name + "=" + c.Value
		}
	}
	t.Fatalf("login (%d) set no session cookie", resp.StatusCode)
	return ""
}

// workspaceNames lists the names of the workspaces token sees.
func (s *testServer) workspaceNames(t *testing.T, token string) []string {
	t.Helper()
	var out []string
	for _, w := range items(t, s.call(t, "GET", "/api/workspaces?page_size=100", token, nil).must(t, 200).data, "items") {
		out = append(out, str(w, "name"))
	}
	return out
}

// rawConn is a TCP connection to the server speaking raw bytes.
type rawConn struct {
	net.Conn
	r *bufio.Reader
}

func (s *testServer) dial(t *testing.T) *rawConn {
	t.Helper()
	c, err := net.DialTimeout("tcp", strings.TrimPrefix(s.base, "http://"), 5*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = c.Close() })
	return &rawConn{Conn: c, r: bufio.NewReader(c)}
}

// closedWithin reports whether the server closed the connection (a read
// returns EOF or a reset) within d, discarding whatever it answers first.
func (c *rawConn) closedWithin(d time.Duration) bool {
	_ = c.SetReadDeadline(time.Now().Add(d))
	_, err := io.Copy(io.Discard, c.r)
	var ne net.Error
	if err == nil {
		return true // EOF
	}
	return !(errors.As(err, &ne) && ne.Timeout())
}

// response reads one HTTP answer from the connection.
func (c *rawConn) response(t *testing.T) *http.Response {
	t.Helper()
	_ = c.SetReadDeadline(time.Now().Add(10 * time.Second))
	resp, err := http.ReadResponse(c.r, nil)
	if err != nil {
		t.Fatalf("reading an answer: %v", err)
	}
	return resp
}
