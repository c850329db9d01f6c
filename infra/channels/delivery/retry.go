// Package delivery holds what the channel kinds share when they send an
// answer to a platform: a bounded retry that honours the platform's
// Retry-After, and splitting a Markdown answer at a platform's length
// limit without breaking its code blocks.
package delivery

import (
	"context"
	"errors"
	"fmt"
	"time"
)

// Retryable marks an error of one attempt that another attempt may cure
// (HTTP 429, 5xx, a dropped connection). After is how long the platform
// asked to wait (Retry-After, Telegram's retry_after); 0 lets the policy's
// backoff decide.
type Retryable struct {
	Err   error
	After time.Duration
}

func (e *Retryable) Error() string { return e.Err.Error() }

// Unwrap returns the error of the attempt, so callers can match its kind.
func (e *Retryable) Unwrap() error { return e.Err }

// RetryAfter is how long the platform asked to wait before another
// attempt (0: it did not say), for a caller that retries itself.
func (e *Retryable) RetryAfter() time.Duration { return e.After }

// Policy bounds the retries of one send.
type Policy struct {
	// Attempts is the most attempts made, the first included.
	Attempts int
	// Budget is the most time spent waiting between attempts; a wait the
	// platform asks for that would exceed it ends the retries at once.
	Budget time.Duration
	// Backoff is the first wait when the platform names none; it doubles
	// with each attempt.
	Backoff time.Duration
	// Sleep waits d or until ctx ends; nil sleeps on a timer.
	Sleep func(ctx context.Context, d time.Duration) error
}

// DefaultPolicy makes 3 attempts waiting at most 30 s in all.
func DefaultPolicy() Policy {
	return Policy{Attempts: 3, Budget: 30 * time.Second, Backoff: 500 * time.Millisecond}
}

// NoRetry makes one attempt and returns its error as it is, a
// *Retryable included, so that a caller retrying on its own (the
// channels' runtime) sees the platform's Retry-After.
func NoRetry() Policy { return Policy{Attempts: 1} }

// Do runs send until it succeeds, fails with an error that is not
// Retryable, or the attempts or the waiting budget run out; then it
// returns the last error (unwrapped from Retryable, so its kind shows).
// A done ctx stops the waiting and returns ctx's error.
func (p Policy) Do(ctx context.Context, send func(context.Context) error) error {
	var waited time.Duration
	for attempt := 1; ; attempt++ {
		err := send(ctx)
		var r *Retryable
		if err == nil || !errors.As(err, &r) || p.Attempts <= 1 {
			return err
		}
		if attempt >= p.Attempts {
			return fmt.Errorf("gave up after %d attempts: %w", attempt, r.Err)
		}
		wait := p.wait(attempt, r.After)
		if waited+wait > p.Budget {
			return fmt.Errorf("gave up: the platform asked to wait %s, beyond the %s retry budget: %w", wait, p.Budget, r.Err)
		}
		if err := p.sleep(ctx, wait); err != nil {
			return fmt.Errorf("%w (last attempt: %v)", err, r.Err)
		}
		waited += wait
	}
}

func (p Policy) wait(attempt int, asked time.Duration) time.Duration {
	if asked > 0 {
		return asked
	}
	return p.Backoff << (attempt - 1)
}

func (p Policy) sleep(ctx context.Context, d time.Duration) error {
	if p.Sleep != nil {
		return p.Sleep(ctx, d)
	}
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-t.C:
		return nil
	}
}
