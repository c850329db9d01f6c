package feishu

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strconv"
	"time"

	"github.com/pergola-ai/pergola/domain/errs"
	"github.com/pergola-ai/pergola/infra/channels/delivery"
)

// Codes of the Open Platform's error answers that Pergola tells apart.
const (
	codeTokenInvalid  = 99991663 // tenant access token invalid
	codeTokenExpired  = 99991661 // access token missing or malformed
	codeRateLimited   = 99991400 // request trigger frequency limit
	maxAnswer         = 1 << 20
	defaultRetryAfter = time.Second
)

// apiError is an answer {"code":non-zero,"msg"} of the Open Platform.
type apiError struct {
	Path string
	Code int
	Msg  string
}

func (e *apiError) Error() string {
	return fmt.Sprintf("feishu %s: code %d: %s", e.Path, e.Code, errs.Excerpt(e.Msg, errs.MaxExcerpt))
}

// tokenRefused says whether the platform refused the tenant token.
func tokenRefused(err error) bool {
	var ae *apiError
	return errors.As(err, &ae) && (ae.Code == codeTokenInvalid || ae.Code == codeTokenExpired)
}

// call sends a JSON request to base+path, with the bearer token when
// set, and decodes the answer into out. Non-zero codes are *apiError
// wrapped in Pergola's vocabulary; 429, 5xx and transport failures come
// wrapped in *delivery.Retryable.
func (k *Kind) call(ctx context.Context, method, base, path, token string, in, out any) error {
	req, err := newRequest(ctx, method, base+path, token, in)
	if err != nil {
		return err
	}
	resp, err := k.client.Do(req)
	if err != nil {
		return delivery.TransportError("feishu", path, err)
	}
	defer resp.Body.Close()
	raw, _ := io.ReadAll(io.LimitReader(resp.Body, maxAnswer))
	if err := statusError(path, resp, raw); err != nil {
		return err
	}
	var head struct {
		Code int    `json:"code"`
		Msg  string `json:"msg"`
	}
	if err := json.Unmarshal(raw, &head); err != nil {
		return errs.New(errs.ErrUnavailable, "feishu %s: HTTP %d with a body that is not JSON", path, resp.StatusCode)
	}
	if head.Code != 0 {
		return codeError(&apiError{Path: path, Code: head.Code, Msg: head.Msg})
	}
	if out != nil {
		return json.Unmarshal(raw, out)
	}
	return nil
}

func newRequest(ctx context.Context, method, url, token string, in any) (*http.Request, error) {
	var body io.Reader
	if in != nil {
		b, err := json.Marshal(in)
		if err != nil {
			return nil, err
		}
		body = bytes.NewReader(b)
	}
	req, err := http.NewRequestWithContext(ctx, method, url, body)
	if err != nil {
		return nil, errs.Invalid("settings.api_base_url", "is not a usable URL: %v", err)
	}
	req.Header.Set("Content-Type", "application/json; charset=utf-8")
	if token != "" {
		req.Header.Set("Authorization", "Bearer "+token)
	}
	return req, nil
}

// statusError handles the statuses that are not the platform's JSON
// answer: rate limits and server failures.
func statusError(path string, resp *http.Response, raw []byte) error {
	switch {
	case resp.StatusCode == http.StatusTooManyRequests:
		after := retryAfter(resp.Header)
		return &delivery.Retryable{Err: errs.New(errs.ErrRateLimited, "feishu %s: rate limited, retry after %s", path, after), After: after}
	case resp.StatusCode >= 500:
		return &delivery.Retryable{Err: errs.New(errs.ErrUnavailable, "feishu %s: HTTP %d", path, resp.StatusCode)}
	case resp.StatusCode >= 300 && !json.Valid(raw):
		return errs.New(errs.ErrInvalid, "feishu %s: HTTP %d", path, resp.StatusCode)
	}
	return nil
}

// retryAfter reads the wait the gateway asks for: x-ogw-ratelimit-reset
// or Retry-After, in seconds.
func retryAfter(h http.Header) time.Duration {
	for _, name := range []string{"X-Ogw-Ratelimit-Reset", "Retry-After"} {
		if n, err := strconv.Atoi(h.Get(name)); err == nil && n >= 0 {
			return time.Duration(n) * time.Second
		}
	}
	return defaultRetryAfter
}

func codeError(e *apiError) error {
	switch {
	case e.Code == codeRateLimited:
		return &delivery.Retryable{Err: fmt.Errorf("%w: %w", errs.ErrRateLimited, e), After: defaultRetryAfter}
	case e.Code == codeTokenInvalid || e.Code == codeTokenExpired:
		return fmt.Errorf("%w: %w", errs.ErrUnauthenticated, e)
	}
	return fmt.Errorf("%w: %w", errs.ErrInvalid, e)
}
