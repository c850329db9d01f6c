package delivery

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/pergola-ai/pergola/domain/errs"
)

func identity(s string) string { return s }

func TestSplitKeepsEveryPieceWithinTheLimitAndLosesNoText(t *testing.T) {
	var b strings.Builder
	for i := 0; i < 300; i++ {
		b.WriteString("line of the answer with some words in it, number ")
		b.WriteString(strings.Repeat("x", i%7))
		b.WriteString("\n")
	}
	b.WriteString(strings.Repeat("é", 250) + "\n")
	pieces := Split(b.String(), 100, identity)
	if len(pieces) < 2 {
		t.Fatalf("expected several pieces, got %d", len(pieces))
	}
	for i, p := range pieces {
		if Length(p) > 100 {
			t.Fatalf("piece %d is %d long", i, Length(p))
		}
	}
	// Pieces are trimmed at their ends; no other character may change.
	if strings.Join(strings.Fields(strings.Join(pieces, "")), "") != strings.Join(strings.Fields(b.String()), "") {
		t.Fatal("split lost or changed text")
	}
}

func TestSplitClosesAndReopensACodeFenceItCuts(t *testing.T) {
	code := "intro\n```go\n" + strings.Repeat("fmt.Println(1)\n", 20) + "```\nafter"
	pieces := Split(code, 120, identity)
	if len(pieces) < 2 {
		t.Fatalf("pieces = %d", len(pieces))
	}
	for i, p := range pieces {
		if strings.Count(p, "```")%2 != 0 {
			t.Fatalf("piece %d has an unbalanced fence:\n%s", i, p)
		}
		if Length(p) > 120 {
			t.Fatalf("piece %d too long", i)
		}
	}
	if !strings.HasPrefix(pieces[1], "```go\n") {
		t.Fatalf("second piece does not reopen the fence:\n%s", pieces[1])
	}
}

func TestSplitMeasuresTheRenderedText(t *testing.T) {
	render := func(s string) string { return strings.ReplaceAll(s, "&", "&amp;") }
	pieces := Split(strings.Repeat("&", 50), 20, render)
	for _, p := range pieces {
		if got := Length(render(p)); got > 20 {
			t.Fatalf("rendered piece is %d long", got)
		}
	}
	if len(pieces) != 13 {
		t.Fatalf("pieces = %d, want 13 (4 ampersands each)", len(pieces))
	}
}

func TestSplitCountsUTF16(t *testing.T) {
	pieces := Split(strings.Repeat("😀", 10), 4, identity)
	if len(pieces) != 5 {
		t.Fatalf("pieces = %d, want 5 (two emoji of 2 units each)", len(pieces))
	}
}

type recordSleep struct{ waits []time.Duration }

func (r *recordSleep) sleep(_ context.Context, d time.Duration) error {
	r.waits = append(r.waits, d)
	return nil
}

func TestDoHonoursRetryAfterThenSucceeds(t *testing.T) {
	rec := &recordSleep{}
	p := Policy{Attempts: 3, Budget: 30 * time.Second, Backoff: time.Second, Sleep: rec.sleep}
	calls := 0
	err := p.Do(context.Background(), func(context.Context) error {
		calls++
		if calls == 1 {
			return &Retryable{Err: errs.New(errs.ErrRateLimited, "slow down"), After: 7 * time.Second}
		}
		return nil
	})
	if err != nil || calls != 2 || len(rec.waits) != 1 || rec.waits[0] != 7*time.Second {
		t.Fatalf("err=%v calls=%d waits=%v", err, calls, rec.waits)
	}
}

func TestDoStopsAtTheAttemptsAndKeepsTheErrorKind(t *testing.T) {
	rec := &recordSleep{}
	p := Policy{Attempts: 3, Budget: 30 * time.Second, Backoff: time.Second, Sleep: rec.sleep}
	calls := 0
	err := p.Do(context.Background(), func(context.Context) error {
		calls++
		return &Retryable{Err: errs.New(errs.ErrUnavailable, "502 Bad Gateway")}
	})
	if calls != 3 || !errors.Is(err, errs.ErrUnavailable) {
		t.Fatalf("calls=%d err=%v", calls, err)
	}
	if want := []time.Duration{time.Second, 2 * time.Second}; len(rec.waits) != 2 || rec.waits[0] != want[0] || rec.waits[1] != want[1] {
		t.Fatalf("waits = %v, want %v", rec.waits, want)
	}
}

func TestDoRefusesAWaitBeyondTheBudget(t *testing.T) {
	rec := &recordSleep{}
	p := Policy{Attempts: 3, Budget: 30 * time.Second, Backoff: time.Second, Sleep: rec.sleep}
	calls := 0
	err := p.Do(context.Background(), func(context.Context) error {
		calls++
		return &Retryable{Err: errs.New(errs.ErrRateLimited, "slow down"), After: time.Minute}
	})
	if calls != 1 || len(rec.waits) != 0 || !errors.Is(err, errs.ErrRateLimited) {
		t.Fatalf("calls=%d waits=%v err=%v", calls, rec.waits, err)
	}
}

func TestDoDoesNotRetryOtherErrorsAndStopsWithTheContext(t *testing.T) {
	calls := 0
	err := DefaultPolicy().Do(context.Background(), func(context.Context) error {
		calls++
		return errs.Unauthenticated("invalid_auth")
	})
	if calls != 1 || !errors.Is(err, errs.ErrUnauthenticated) {
		t.Fatalf("calls=%d err=%v", calls, err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	err = DefaultPolicy().Do(ctx, func(context.Context) error {
		return &Retryable{Err: errs.New(errs.ErrUnavailable, "503")}
	})
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("err = %v, want context.Canceled", err)
	}
}

func TestNoRetrySendsOnceAndLeavesTheWaitToTheCaller(t *testing.T) {
	calls := 0
	err := NoRetry().Do(context.Background(), func(context.Context) error {
		calls++
		return &Retryable{Err: errs.New(errs.ErrRateLimited, "slow down"), After: 7 * time.Second}
	})
	var asked interface{ RetryAfter() time.Duration }
	if calls != 1 || !errors.As(err, &asked) || asked.RetryAfter() != 7*time.Second || !errors.Is(err, errs.ErrRateLimited) {
		t.Fatalf("calls=%d err=%v; want one call and the platform's wait of 7s", calls, err)
	}
}
