package trace

import (
	"context"
	"testing"
	"time"
)

// agedStore holds the creation times of records, oldest first.
type agedStore struct {
	times []time.Time
	calls int
}

func (s *agedStore) DeleteTracesBefore(_ context.Context, t time.Time, limit int) (int, error) {
	s.calls++
	n := 0
	for n < len(s.times) && n < limit && s.times[n].Before(t) {
		n++
	}
	s.times = s.times[n:]
	return n, nil
}

func TestPrunerDeletesWhatIsOlderThanTheRetention(t *testing.T) {
	now := time.Date(2026, 11, 25, 0, 0, 0, 0, time.UTC)
	store := &agedStore{}
	for i := 2500; i > 0; i-- { // 2500 records a minute apart, the last a minute ago
		store.times = append(store.times, now.Add(-time.Duration(i)*time.Minute))
	}
	p := Pruner{Store: store, Retention: 24 * time.Hour, Now: func() time.Time { return now }}
	n, err := p.Prune(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	// Kept: the records of the last 24 hours, the one of exactly 24 hours
	// ago included.
	if want := 2500 - 24*60; n != want || len(store.times) != 24*60 || store.calls != 2 {
		t.Fatalf("deleted %d in %d calls, %d kept; want %d deleted in 2 calls, %d kept", n, store.calls, len(store.times), want, 24*60)
	}
	if store.times[0].Before(now.Add(-24 * time.Hour)) {
		t.Fatalf("the oldest kept record is from %s", store.times[0])
	}
}

func TestPrunerWithoutRetentionKeepsEverything(t *testing.T) {
	store := &agedStore{times: []time.Time{time.Unix(0, 0)}}
	done := make(chan struct{})
	go func() {
		Pruner{Store: store, Every: time.Millisecond, Now: time.Now}.Run(context.Background())
		close(done)
	}()
	<-done // Run returns at once
	if store.calls != 0 || len(store.times) != 1 {
		t.Fatalf("%d calls, %d records left", store.calls, len(store.times))
	}
}
