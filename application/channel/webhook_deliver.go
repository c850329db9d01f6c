package channel

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strconv"
	"time"

	"github.com/pergola-ai/pergola/domain/channel"
	"github.com/pergola-ai/pergola/domain/errs"
)

// RecordDeliverer is an Adapter whose send needs the whole event (our
// webhook's callback carries the chat and conversation ids); the runtime
// calls DeliverRecord instead of Deliver then. It sends once: the
// runtime retries.
type RecordDeliverer interface {
	DeliverRecord(ctx context.Context, c *channel.Channel, d *channel.Delivery) error
}

// RetryError is a send the platform asked to retry (429, 5xx), after
// After when it said so (Retry-After).
type RetryError struct {
	Status int
	After  time.Duration
}

// RetryAfter is how long the receiver asked to wait (0: it did not say).
func (e *RetryError) RetryAfter() time.Duration { return e.After }

func (e *RetryError) Error() string {
	return fmt.Sprintf("the receiver answered %d; retrying", e.Status)
}

// maxRetryAfter bounds how long a Retry-After is honoured.
const maxRetryAfter = 30 * time.Second

// Deliver posts an answer without chat ids to callback_url; see
// DeliverRecord.
func (w *Webhook) Deliver(ctx context.Context, c *channel.Channel, reply json.RawMessage, text string) error {
	var r webhookReply
	_ = json.Unmarshal(reply, &r)
	return w.post(ctx, c, WebhookAnswer{EventID: r.EventID, Text: text})
}

// DeliverRecord posts the answer of d to callback_url, signed with the
// channel's secret. A 429 or 5xx is a *RetryError; another non-2xx status
// is errs.ErrInvalid naming callback_url (not retried).
func (w *Webhook) DeliverRecord(ctx context.Context, c *channel.Channel, d *channel.Delivery) error {
	return w.post(ctx, c, answerOf(d))
}

func (w *Webhook) post(ctx context.Context, c *channel.Channel, a WebhookAnswer) error {
	body, _ := json.Marshal(a)
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, settingOf(c, "callback_url"), bytes.NewReader(body))
	if err != nil {
		return errs.Invalid("callback_url", "%v", err)
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set(SignatureHeader, Sign(settingOf(c, "secret"), w.now(), body))
	resp, err := w.HTTP.Do(req)
	if err != nil {
		return fmt.Errorf("POST callback_url: %w", err)
	}
	defer resp.Body.Close()
	_, _ = io.Copy(io.Discard, io.LimitReader(resp.Body, 64<<10))
	switch {
	case resp.StatusCode < 300:
		return nil
	case resp.StatusCode == http.StatusTooManyRequests || resp.StatusCode >= 500:
		return &RetryError{Status: resp.StatusCode, After: retryAfter(resp.Header.Get("Retry-After"))}
	}
	return errs.Invalid("callback_url", "answered %d to the signed answer; it must answer 2xx", resp.StatusCode)
}

// retryAfter reads a Retry-After of seconds, bounded; 0 when absent.
func retryAfter(v string) time.Duration {
	n, err := strconv.Atoi(v)
	if err != nil || n < 0 {
		return 0
	}
	return min(time.Duration(n)*time.Second, maxRetryAfter)
}
