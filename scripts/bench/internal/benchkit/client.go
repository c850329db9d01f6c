package benchkit

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"time"
)

// Client calls one Pergola server as a user's program would: keep-alive
// connections, a bearer token, JSON bodies.
type Client struct {
	Base  string
	Token string
	HTTP  *http.Client
}

// NewClient returns a client with enough idle connections for conns
// requests at once.
func NewClient(base, token string, conns int) *Client {
	tr := &http.Transport{MaxIdleConns: conns + 16, MaxIdleConnsPerHost: conns + 16, IdleConnTimeout: time.Minute,
		DialContext: (&net.Dialer{Timeout: 10 * time.Second}).DialContext}
	return &Client{Base: base, Token: token, HTTP: &http.Client{Transport: tr, Timeout: 5 * time.Minute}}
}

// Request builds a request with the token and, when body is not nil, a
// JSON body.
func (c *Client) Request(method, path string, body any) (*http.Request, error) {
	var rd io.Reader
	if body != nil {
		b, err := json.Marshal(body)
		if err != nil {
			return nil, err
		}
		rd = bytes.NewReader(b)
	}
	req, err := http.NewRequest(method, c.Base+path, rd)
	if err != nil {
		return nil, err
	}
	req.Header.Set("Authorization", "Bearer "+c.Token)
	if body != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	return req, nil
}

// Envelope is the JSON answer of the Coze and console routes.
type Envelope struct {
	Code int             `json:"code"`
	Msg  string          `json:"msg"`
	Data json.RawMessage `json:"data"`
	// ExecuteID is set by /v1/workflow/run beside data.
	ExecuteID string `json:"execute_id"`
}

// Call sends one JSON request and decodes the envelope. A status other
// than want, or a non-zero code, is an error that quotes the body.
func (c *Client) Call(method, path string, body any, want int) (*Envelope, error) {
	req, err := c.Request(method, path, body)
	if err != nil {
		return nil, err
	}
	resp, err := c.HTTP.Do(req)
	if err != nil {
		return nil, fmt.Errorf("%s %s: %w", method, path, err)
	}
	defer resp.Body.Close()
	raw, err := io.ReadAll(resp.Body)
	if err != nil {
		return nil, fmt.Errorf("%s %s: reading the answer: %w", method, path, err)
	}
	var env Envelope
	if resp.StatusCode != want || json.Unmarshal(raw, &env) != nil || env.Code != 0 {
		return nil, fmt.Errorf("%s %s: status %d, want %d: %.300s", method, path, resp.StatusCode, want, raw)
	}
	return &env, nil
}

// Into decodes the envelope's data into v.
func (e *Envelope) Into(v any) error {
	if err := json.Unmarshal(e.Data, v); err != nil {
		return fmt.Errorf("data %.200s: %w", e.Data, err)
	}
	return nil
}
