package main

import (
	"errors"
	"fmt"
	"slices"
	"time"

	"github.com/pergola-ai/pergola/scripts/internal/loadstat"
)

// outcome is what the run observed besides the acknowledgements.
type outcome struct {
	got    map[string]answer
	bad    map[string]int
	began  time.Time
	peakKB int64
}

// report prints the numbers and returns an error when anything failed:
// a refused event, a bad or double answer, or an event never answered.
func report(evs []event, acks []ack, out outcome) error {
	errs := map[string]int{}
	for e, n := range out.bad {
		errs[e] += n
	}
	ackLat, lastAck := acknowledged(acks, errs)
	e2e, lastAnswer, dups := answered(evs, acks, out.got, errs)
	distinct := len(evs) - dups
	fmt.Printf("events: %d distinct + %d retried ids, requests acknowledged 202: %d, answered: %d, errors: %d, peak server RSS: %d MB\n",
		distinct, dups, len(ackLat), len(e2e), total(errs), out.peakKB/1024)
	if len(ackLat) > 0 {
		fmt.Printf("acknowledgement: p50 %s  p99 %s  max %s, %.0f requests/s acknowledged (%d in %s)\n", loadstat.Pct(ackLat, 50), loadstat.Pct(ackLat, 99),
			ackLat[len(ackLat)-1].Round(time.Millisecond), rate(len(ackLat), lastAck.Sub(out.began)), len(ackLat), lastAck.Sub(out.began).Round(time.Millisecond))
	}
	if len(e2e) > 0 {
		fmt.Printf("event→callback:  p50 %s  p99 %s  max %s, %.0f events/s answered (%d in %s)\n", loadstat.Pct(e2e, 50), loadstat.Pct(e2e, 99),
			e2e[len(e2e)-1].Round(time.Millisecond), rate(len(e2e), lastAnswer.Sub(out.began)), len(e2e), lastAnswer.Sub(out.began).Round(time.Millisecond))
	}
	fmt.Printf("retried ids: %d sent, %d answered exactly once\n", dups, onceAnswered(evs, out.got))
	for e, n := range errs {
		fmt.Printf("error x%d: %s\n", n, e)
	}
	if len(errs) > 0 {
		return errors.New("the run had errors")
	}
	return nil
}

// acknowledged returns the sorted latencies of the 202s and the last one's
// time, counting the other answers as errors.
func acknowledged(acks []ack, errs map[string]int) ([]time.Duration, time.Time) {
	var lat []time.Duration
	var last time.Time
	for _, a := range acks {
		if a.err != nil {
			errs["acknowledgement: "+a.err.Error()]++
			continue
		}
		lat = append(lat, a.at.Sub(a.sent))
		if a.at.After(last) {
			last = a.at
		}
	}
	slices.Sort(lat)
	return lat, last
}

// answered returns the sorted event-to-callback latencies (from the first
// send of each id), the last answer's time and the number of retries,
// counting missing, wrong and double answers as errors.
func answered(evs []event, acks []ack, got map[string]answer, errs map[string]int) ([]time.Duration, time.Time, int) {
	var lat []time.Duration
	var last time.Time
	dups := 0
	for i, ev := range evs {
		if ev.dup {
			dups++
			continue
		}
		a, ok := got[ev.id]
		switch {
		case !ok:
			errs["event never answered at the callback"]++
			continue
		case a.count > 1:
			errs[fmt.Sprintf("event answered %d times at the callback", a.count)]++
		case a.text != "echo: "+ev.text:
			errs["wrong answer text"]++
		}
		lat = append(lat, a.first.Sub(acks[i].sent))
		if a.first.After(last) {
			last = a.first
		}
	}
	slices.Sort(lat)
	return lat, last, dups
}

func onceAnswered(evs []event, got map[string]answer) int {
	n := 0
	for _, ev := range evs {
		if ev.dup && got[ev.id].count == 1 {
			n++
		}
	}
	return n
}

func total(errs map[string]int) int {
	n := 0
	for _, v := range errs {
		n += v
	}
	return n
}

func rate(n int, d time.Duration) float64 {
	if d <= 0 {
		return 0
	}
	return float64(n) / d.Seconds()
}
