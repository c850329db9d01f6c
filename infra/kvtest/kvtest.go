// Package kvtest is the contract suite for Pergola's coordination back ends:
// every implementation of Cache, Locker, Queue, PubSub and RateLimiter (in
// package memory and package redis) runs the same tests from its own
// _test.go files, so the embedded default and the multi-process deployment
// cannot drift apart.
//
// The suite never asserts on how long something took. It waits for outcomes
// with generous deadlines (see Patience), so it holds on slow, loaded
// machines; the short durations it uses (TTLs, windows, visibility
// timeouts) only bound how long a passing run takes.
package kvtest

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/pergola-ai/pergola/domain/errs"
)

// Patience is how long the suite waits for something that should happen
// within milliseconds before it fails a test.
const Patience = 15 * time.Second

// short is the TTL, window or visibility timeout for things a test waits
// out; long is one a test must never see run out.
const (
	short = 150 * time.Millisecond
	long  = time.Minute
)

// eventually polls cond until it holds, failing the test after Patience.
func eventually(t testing.TB, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(Patience)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("gave up after %s waiting for %s", Patience, what)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// receive waits for a value on ch, failing the test after Patience.
func receive[T any](t testing.TB, what string, ch <-chan T) (T, bool) {
	t.Helper()
	select {
	case v, ok := <-ch:
		return v, ok
	case <-time.After(Patience):
		t.Fatalf("gave up after %s waiting for %s", Patience, what)
		var zero T
		return zero, false
	}
}

func noErr(t testing.TB, what string, err error) {
	t.Helper()
	if err != nil {
		t.Fatalf("%s: %v", what, err)
	}
}

func wantErr(t testing.TB, what string, err, target error) {
	t.Helper()
	if !errors.Is(err, target) {
		t.Fatalf("%s: got error %v, want one matching %v", what, err, target)
	}
}

func wantInvalid(t testing.TB, what string, err error) {
	t.Helper()
	wantErr(t, what, err, errs.ErrInvalid)
}

// background is a context for calls that must not be cut short by the
// test's own context being cancelled during cleanup.
func background(t testing.TB) context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), 2*Patience)
	t.Cleanup(cancel)
	return ctx
}
