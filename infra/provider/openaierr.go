package provider

import (
	"bytes"
	"encoding/json"
	"io"
	"net/http"
	"strings"
)

// openAIClient returns a copy of base (or a default client) whose
// transport puts a failed answer in OpenAI's error shape, so that every
// error names the status and a short excerpt of what the provider said:
// go-openai reports an "error" that is a string (as some compatible
// servers send) with neither message nor status, and any other body
// whole, however long. The model's API key is masked wherever such a body
// echoes it.
func openAIClient(base *http.Client, apiKey string) *http.Client {
	c := &http.Client{}
	if base != nil {
		*c = *base
	}
	next := c.Transport
	if next == nil {
		next = http.DefaultTransport
	}
	c.Transport = openAIErrors{next: next, key: apiKey}
	return c
}

type openAIErrors struct {
	next http.RoundTripper
	key  string
}

func (o openAIErrors) RoundTrip(req *http.Request) (*http.Response, error) {
	return rewriteFailed(o.next, req, o.rewrite)
}

// rewrite masks the key in a failed answer's body and puts it in OpenAI's
// shape unless it is already.
func (o openAIErrors) rewrite(resp *http.Response, body []byte) []byte {
	if o.key != "" {
		body = bytes.ReplaceAll(body, []byte(o.key), []byte("****"))
	}
	if !hasOpenAIError(body) {
		body = openAIErrorBody(resp, body)
	}
	resp.Header.Set("Content-Type", "application/json")
	return body
}

// rewriteFailed sends req through next and, when the answer is not a 2xx,
// replaces its body, read up to maxErrorBody, by what rewrite makes of it.
func rewriteFailed(next http.RoundTripper, req *http.Request, rewrite func(*http.Response, []byte) []byte) (*http.Response, error) {
	resp, err := next.RoundTrip(req)
	if err != nil || (resp.StatusCode >= 200 && resp.StatusCode < 300) {
		return resp, err
	}
	body, err := io.ReadAll(io.LimitReader(resp.Body, maxErrorBody))
	_ = resp.Body.Close()
	if err != nil {
		return nil, err
	}
	body = rewrite(resp, body)
	resp.Header.Del("Content-Length")
	resp.Body = io.NopCloser(bytes.NewReader(body))
	resp.ContentLength = int64(len(body))
	return resp, nil
}

// hasOpenAIError reports whether body is OpenAI's error shape with a
// message of at most an excerpt's length.
func hasOpenAIError(body []byte) bool {
	var v struct {
		Error *struct {
			Message string `json:"message"`
		} `json:"error"`
	}
	return json.Unmarshal(body, &v) == nil && v.Error != nil && v.Error.Message != "" && len(v.Error.Message) <= 300
}

// openAIErrorBody is body rewritten in OpenAI's shape: its message an
// excerpt of what the provider said (or the status's text).
func openAIErrorBody(resp *http.Response, body []byte) []byte {
	msg := errorMessage(body)
	if strings.TrimSpace(msg) == "" {
		msg = http.StatusText(resp.StatusCode)
	}
	var e struct {
		Error struct {
			Message string `json:"message"`
			Type    string `json:"type"`
		} `json:"error"`
	}
	e.Error.Message, e.Error.Type = msg, "upstream_error"
	b, _ := json.Marshal(e)
	return b
}
