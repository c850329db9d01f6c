package main

import (
	"sync"
	"time"

	"github.com/pergola-ai/pergola/scripts/bench/internal/benchkit"
)

// plan says how a measuring phase runs.
type plan struct {
	rounds int             // rounds per worker; ignored when until is set
	until  time.Time       // run rounds until then
	record bool            // keep the latencies (false: warm-up)
	bare   bool            // run the bare agent's turn beside each Pergola turn
	cpuPID int             // sample this server's CPU per turn (one worker only)
	stop   <-chan struct{} // ends the phase early (profiling)
}

func (pl plan) more(round int) bool {
	if pl.stop != nil {
		select {
		case <-pl.stop:
			return false
		default:
		}
	}
	if !pl.until.IsZero() {
		return time.Now().Before(pl.until)
	}
	if pl.rounds > 0 {
		return round < pl.rounds
	}
	return pl.stop != nil // until stopped
}

// runPhase runs every worker until the plan ends. Each round runs every
// path once, on Pergola and on the bare agent, starting at a different
// path each round, so that both sides see the same machine over time.
func runPhase(workers []*worker, paths []*path, pl plan) time.Duration {
	began := time.Now()
	var wg sync.WaitGroup
	for _, w := range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for r := 0; pl.more(r); r++ {
				for k := range paths {
					p := paths[(r+k)%len(paths)]
					runPergola(w, p, pl)
					if pl.bare {
						runBare(w, p, pl)
					}
				}
			}
		}()
	}
	wg.Wait()
	return time.Since(began)
}

func runPergola(w *worker, p *path, pl plan) {
	cpu0 := benchkit.CPUTime(pl.cpuPID)
	t, err := p.pergola(w)
	cpu := benchkit.CPUTime(pl.cpuPID) - cpu0
	if err != nil {
		p.fail(err)
		return
	}
	if !pl.record {
		return
	}
	p.first.Add(t.first)
	p.total.Add(t.total)
	p.addTurn(cpu, pl.cpuPID != 0, t.polls)
}

func runBare(w *worker, p *path, pl plan) {
	t, err := p.bare(w)
	if err != nil {
		p.fail(err)
		return
	}
	if pl.record {
		p.bareFirst.Add(t.first)
		p.bareTotal.Add(t.total)
	}
}
