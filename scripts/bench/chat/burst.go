package main

import (
	"fmt"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/pergola-ai/pergola/scripts/bench/internal/benchkit"
)

// runBurst opens o.burst streamed chats at once, each a new conversation
// of its own user, waits for all of them, and reports errors, latencies
// and the peak memory of every server process in o.pids. Any failed chat
// fails the run.
func runBurst(cl *benchkit.Client, bot string, o options) error {
	procs, err := parsePIDs(o.pids)
	if err != nil {
		return err
	}
	for i := range 5 { // warm-up: connections, the bot's agent, the statement caches
		c := conv{bot: bot}
		if _, err := streamTurn(cl, &c, "warm-"+strconv.Itoa(i), plainText, plainWant); err != nil {
			return fmt.Errorf("warm-up: %w", err)
		}
	}
	var first, total benchkit.Sample
	var mu sync.Mutex
	errs := map[string]int{}
	pids := make([]int, len(procs))
	for i, p := range procs {
		pids[i] = p.pid
	}
	stopRSS := benchkit.PeakRSS(pids)
	start := make(chan struct{})
	var wg sync.WaitGroup
	for i := range o.burst {
		wg.Add(1)
		go func() {
			defer wg.Done()
			<-start
			c := conv{bot: bot}
			t, err := streamTurn(cl, &c, "burst-"+strconv.Itoa(i), plainText, plainWant)
			if err != nil {
				mu.Lock()
				errs[localPort.ReplaceAllString(err.Error(), "$1:*->")]++
				mu.Unlock()
				return
			}
			first.Add(t.first)
			total.Add(t.total)
		}()
	}
	began := time.Now()
	close(start)
	wg.Wait()
	wall := time.Since(began)
	printBurst(o, procs, stopRSS(), &first, &total, errs, wall)
	if len(errs) > 0 {
		return fmt.Errorf("%d of %d chats failed", o.burst-total.Len(), o.burst)
	}
	return nil
}

// localPort matches the client's port in a connection error, so that the
// same error on many connections is counted once.
var localPort = regexp.MustCompile(`(\d+\.\d+\.\d+\.\d+):\d+->`)

// proc is a process whose memory -burst watches: "name=pid" or "pid".
type proc struct {
	name string
	pid  int
}

func parsePIDs(list string) ([]proc, error) {
	var procs []proc
	for _, s := range strings.Split(list, ",") {
		if s = strings.TrimSpace(s); s == "" {
			continue
		}
		name, num, found := strings.Cut(s, "=")
		if !found {
			name, num = "process "+s, s
		}
		pid, err := strconv.Atoi(num)
		if err != nil {
			return nil, fmt.Errorf("-pids: %q is not a process id or name=id", s)
		}
		procs = append(procs, proc{name: name, pid: pid})
	}
	return procs, nil
}

func printBurst(o options, procs []proc, peaks []int64, first, total *benchkit.Sample, errs map[string]int, wall time.Duration) {
	fmt.Printf("\n%d streamed chats at once%s: %d ok, %d failed, all done in %s\n",
		o.burst, label(o.label), total.Len(), o.burst-total.Len(), wall.Round(time.Millisecond))
	if total.Len() > 0 {
		fmt.Printf("first answer delta: p50 %s ms  p99 %s ms;  whole chat: p50 %s ms  p99 %s ms\n",
			benchkit.Ms(first.Pct(50)), benchkit.Ms(first.Pct(99)), benchkit.Ms(total.Pct(50)), benchkit.Ms(total.Pct(99)))
	}
	for i, p := range procs {
		fmt.Printf("%s (pid %d): peak RSS %d MB\n", p.name, p.pid, peaks[i])
	}
	for e, n := range errs {
		fmt.Printf("error x%d: %s\n", n, e)
	}
}
