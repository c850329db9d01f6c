package provider

import (
	"encoding/json"
	"net/http"
	"strings"
)

// maxErrorBody bounds how much of a failed response is read and reported.
const maxErrorBody = 64 << 10

// geminiClient returns a copy of base (or a default client) whose transport
// guards against a genai v1.13.0 crash: for a failed response whose body is
// JSON without an "error" object, genai dereferences a nil pointer. That is
// what a base URL pointing at the wrong server (a proxy, an OpenAI-compatible
// endpoint) answers, so such bodies are rewritten into Google's error shape.
func geminiClient(base *http.Client) *http.Client {
	c := &http.Client{}
	if base != nil {
		*c = *base
	}
	next := c.Transport
	if next == nil {
		next = http.DefaultTransport
	}
	c.Transport = googleErrors{next: next}
	return c
}

type googleErrors struct{ next http.RoundTripper }

func (g googleErrors) RoundTrip(req *http.Request) (*http.Response, error) {
	return rewriteFailed(g.next, req, func(resp *http.Response, body []byte) []byte {
		if hasGoogleError(body) {
			return body
		}
		return googleErrorBody(resp, body)
	})
}

// hasGoogleError reports whether body is JSON with an "error" object, or is
// not JSON at all (genai reports plain text correctly).
func hasGoogleError(body []byte) bool {
	var v struct {
		Error *struct{} `json:"error"`
	}
	if json.Unmarshal(body, &v) != nil {
		return true
	}
	return v.Error != nil
}

func googleErrorBody(resp *http.Response, body []byte) []byte {
	msg := strings.TrimSpace(string(body))
	if msg == "" {
		msg = http.StatusText(resp.StatusCode)
	}
	var e struct {
		Error struct {
			Code    int    `json:"code"`
			Message string `json:"message"`
			Status  string `json:"status"`
		} `json:"error"`
	}
	e.Error.Code, e.Error.Message, e.Error.Status = resp.StatusCode, msg, http.StatusText(resp.StatusCode)
	b, _ := json.Marshal(e)
	return b
}
