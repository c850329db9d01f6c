package main

import (
	"fmt"
	"os"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	"github.com/pergola-ai/pergola/scripts/bench/internal/benchkit"
)

// counter counts failed runs and keeps the first error.
type counter struct {
	mu    sync.Mutex
	n     int
	first string
}

func (c *counter) add(err error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.n++
	if c.first == "" {
		c.first = err.Error()
	}
}

// load runs t from conc workers, each starting its next run when the
// last one is answered, until stop is closed. Latencies go to s (when not
// nil), failures to errs; it returns the runs answered.
func load(t target, conc int, stop <-chan struct{}, s *benchkit.Sample, errs *counter) int64 {
	var done atomic.Int64
	var wg sync.WaitGroup
	for w := range conc {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := 0; ; i++ {
				select {
				case <-stop:
					return
				default:
				}
				took, err := t.run(fmt.Sprintf("w%d-%d", w, i))
				if err != nil {
					errs.add(err)
					continue
				}
				done.Add(1)
				if s != nil {
					s.Add(took)
				}
			}
		}()
	}
	wg.Wait()
	return done.Load()
}

// loadFor runs load for d.
func loadFor(t target, conc int, d time.Duration, s *benchkit.Sample, errs *counter) int64 {
	stop := make(chan struct{})
	timer := time.AfterFunc(d, func() { close(stop) })
	defer timer.Stop()
	return load(t, conc, stop, s, errs)
}

type rateResult struct {
	runs int64
	wall time.Duration
	lat  benchkit.Sample
	errs counter
}

// ratePhase warms every target up, then loads each in turn, alternating
// over o.rounds slices of o.duration so both see the same machine, and
// prints the rates and their ratio.
func ratePhase(targets []target, o options) error {
	results := make([]*rateResult, len(targets))
	for i, t := range targets {
		results[i] = &rateResult{}
		var warmErrs counter
		loadFor(t, o.conc, time.Second, nil, &warmErrs)
		if warmErrs.n > 0 {
			return fmt.Errorf("%s warm-up: %d failed runs, first: %s", t.name, warmErrs.n, warmErrs.first)
		}
	}
	slice := o.duration / time.Duration(max(1, o.rounds))
	for r := range max(1, o.rounds) {
		for k := range targets {
			i := (r + k) % len(targets)
			began := time.Now()
			results[i].runs += loadFor(targets[i], o.conc, slice, &results[i].lat, &results[i].errs)
			results[i].wall += time.Since(began)
		}
	}
	printRates(targets, results, o)
	for i, res := range results {
		if res.errs.n > 0 {
			return fmt.Errorf("%s: %d failed runs, first: %s", targets[i].name, res.errs.n, res.errs.first)
		}
	}
	return nil
}

func printRates(targets []target, results []*rateResult, o options) {
	slices := ""
	if len(targets) > 1 && o.rounds > 1 {
		slices = fmt.Sprintf(", in %d alternating slices", o.rounds)
	}
	fmt.Printf("\n2-node workflow (Start → End echoing an input) over HTTP%s: %d at once, %s each%s\n",
		labelOf(o.label), o.conc, o.duration, slices)
	var t benchkit.Table
	t.Row("system", "runs", "errors", "req/s", "p50 ms", "p99 ms")
	rates := make([]float64, len(results))
	for i, res := range results {
		rates[i] = float64(res.runs) / res.wall.Seconds()
		t.Row(targets[i].name, strconv.FormatInt(res.runs, 10), strconv.Itoa(res.errs.n), fmt.Sprintf("%.0f", rates[i]),
			benchkit.Ms(res.lat.Pct(50)), benchkit.Ms(res.lat.Pct(99)))
	}
	t.Print(os.Stdout)
	if len(rates) == 2 && rates[1] > 0 {
		fmt.Printf("Pergola / n8n: %.1f× the requests per second\n", rates[0]/rates[1])
	}
}

func labelOf(l string) string {
	if l == "" {
		return ""
	}
	return " on " + l
}
