package provider

import (
	"bytes"
	"context"
	"io"
	"net/http"
	"strconv"
	"time"
)

// Defaults of the retries of embedding and rerank requests.
const (
	DefaultRetryAttempts = 4                      // tries of one request, the first included
	DefaultRetryMaxWait  = 30 * time.Second       // longest pause between two tries
	retryBaseWait        = 500 * time.Millisecond // first pause when the provider names none
)

// retryTransport sends a request again when the provider answers 429 or a
// 5xx, or the connection failed before an answer (a provider or proxy
// closing a kept-alive connection as the request went out; embedding and
// rerank requests read nothing and may be sent twice): after the pause the
// response asks for (retry-after-ms, else Retry-After in seconds or as a
// date), else after an exponential backoff;
// never longer than maxWait, and never past the request's context. The
// last answer is returned as it came, for the caller to report.
type retryTransport struct {
	base     http.RoundTripper
	attempts int
	maxWait  time.Duration
}

// RoundTrip implements http.RoundTripper.
func (t retryTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	body, err := readBody(req)
	if err != nil {
		return nil, err
	}
	for attempt := 1; ; attempt++ {
		try := req.Clone(req.Context())
		if body != nil {
			try.Body = io.NopCloser(bytes.NewReader(body))
			try.GetBody = func() (io.ReadCloser, error) { return io.NopCloser(bytes.NewReader(body)), nil }
		}
		resp, err := t.base.RoundTrip(try)
		if attempt >= t.attempts || req.Context().Err() != nil || (err == nil && !retryable(resp.StatusCode)) {
			return resp, err
		}
		wait := min(retryBaseWait<<(attempt-1), t.maxWait) // a dropped connection: the backoff
		if err == nil {
			wait = min(retryWait(resp.Header, attempt), t.maxWait)
			_, _ = io.Copy(io.Discard, io.LimitReader(resp.Body, 64<<10))
			resp.Body.Close()
		}
		if err := pause(req.Context(), wait); err != nil {
			return nil, err
		}
	}
}

func readBody(req *http.Request) ([]byte, error) {
	if req.Body == nil || req.Body == http.NoBody {
		return nil, nil
	}
	defer req.Body.Close()
	return io.ReadAll(req.Body)
}

func retryable(status int) bool {
	return status == http.StatusTooManyRequests || status >= 500
}

// retryWait is the pause the provider asked for, else 0.5s, 1s, 2s, ...
func retryWait(h http.Header, attempt int) time.Duration {
	if ms, err := strconv.Atoi(h.Get("retry-after-ms")); err == nil && ms >= 0 {
		return time.Duration(ms) * time.Millisecond
	}
	if v := h.Get("Retry-After"); v != "" {
		if secs, err := strconv.Atoi(v); err == nil && secs >= 0 {
			return time.Duration(secs) * time.Second
		}
		if at, err := http.ParseTime(v); err == nil {
			return max(time.Until(at), 0)
		}
	}
	return retryBaseWait << (attempt - 1)
}

// pause waits d, or returns ctx's error when it ends first.
func pause(ctx context.Context, d time.Duration) error {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

// retryingClient returns a client like f.HTTPClient whose requests are
// retried as retryTransport says.
func (f Factory) retryingClient() *http.Client {
	base := http.DefaultTransport
	c := &http.Client{}
	if f.HTTPClient != nil {
		*c = *f.HTTPClient
		if f.HTTPClient.Transport != nil {
			base = f.HTTPClient.Transport
		}
	}
	attempts, wait := f.RetryAttempts, f.RetryMaxWait
	if attempts <= 0 {
		attempts = DefaultRetryAttempts
	}
	if wait <= 0 {
		wait = DefaultRetryMaxWait
	}
	c.Transport = retryTransport{base: base, attempts: attempts, maxWait: wait}
	return c
}
