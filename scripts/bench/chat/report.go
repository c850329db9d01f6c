package main

import (
	"fmt"
	"io"
	"time"

	"github.com/pergola-ai/pergola/scripts/bench/internal/benchkit"
)

// report prints one row per path: Pergola's latencies, the bare agent's,
// the overhead at p50, the first answer delta and what the platform adds
// to it, and the server's CPU per turn.
func report(w io.Writer, paths []*path, o options, wall time.Duration) {
	if !o.bare {
		reportRates(w, paths, o, wall)
		return
	}
	fmt.Fprintf(w, "\n/v3/chat against a bare eino agent%s: %d worker(s), %s, poll every %s; milliseconds\n",
		label(o.label), o.conc, turnsText(paths, wall), o.poll)
	var t benchkit.Table
	t.Row("path", "turns", "p50", "p99", "p99/p50", "bare p50", "bare p99", "overhead p50",
		"1st delta p50", "bare 1st p50", "1st added", "server CPU/turn")
	for _, p := range paths {
		t.Row(p.row()...)
	}
	t.Print(w)
	fmt.Fprintln(w, "stream: POST /v3/chat stream=true, whole SSE stream read; 1st delta = first answer delta.")
	fmt.Fprintln(w, "polled: POST /v3/chat stream=false, GET /v3/chat/retrieve until completed, GET /v3/chat/message/list;")
	fmt.Fprintln(w, "        its 1st column is the create call's answer. bare: react agent Stream (stream) or Generate (polled).")
	for _, p := range paths {
		if !p.stream && p.total.Len() > 0 {
			fmt.Fprintf(w, "%s: %.1f retrieves per turn\n", p.name, float64(p.polls)/float64(p.total.Len()))
		}
	}
}

// reportRates prints Pergola's rate per path when it ran alone.
func reportRates(w io.Writer, paths []*path, o options, wall time.Duration) {
	fmt.Fprintf(w, "\n/v3/chat%s: %d worker(s), %s; milliseconds\n", label(o.label), o.conc, turnsText(paths, wall))
	var t benchkit.Table
	t.Row("path", "turns", "turns/s", "p50", "p99", "1st p50", "1st p99")
	for _, p := range paths {
		t.Row(p.name, fmt.Sprint(p.total.Len()), fmt.Sprintf("%.0f", float64(p.total.Len())/wall.Seconds()),
			benchkit.Ms(p.total.Pct(50)), benchkit.Ms(p.total.Pct(99)), benchkit.Ms(p.first.Pct(50)), benchkit.Ms(p.first.Pct(99)))
	}
	t.Print(w)
}

func label(l string) string {
	if l == "" {
		return ""
	}
	return " on " + l
}

func turnsText(paths []*path, wall time.Duration) string {
	n := 0
	for _, p := range paths {
		n += p.total.Len()
	}
	return fmt.Sprintf("%d measured Pergola turns in %s", n, wall.Round(time.Millisecond))
}

func (p *path) row() []string {
	p50, p99 := p.total.Pct(50), p.total.Pct(99)
	ratio := "-"
	if p50 > 0 {
		ratio = fmt.Sprintf("%.1f", float64(p99)/float64(p50))
	}
	bare50, bare99, over := "-", "-", "-"
	if p.bareTotal.Len() > 0 {
		bare50, bare99, over = benchkit.Ms(p.bareTotal.Pct(50)), benchkit.Ms(p.bareTotal.Pct(99)), benchkit.SignedMs(p50-p.bareTotal.Pct(50))
	}
	bareFirst, added := "-", "-"
	if p.stream && p.bareFirst.Len() > 0 {
		bareFirst, added = benchkit.Ms(p.bareFirst.Pct(50)), benchkit.SignedMs(p.first.Pct(50)-p.bareFirst.Pct(50))
	}
	cpu := "-"
	if p.cpuTurns > 0 {
		cpu = benchkit.Ms(p.cpu / time.Duration(p.cpuTurns))
	}
	return []string{p.name, fmt.Sprint(p.total.Len()), benchkit.Ms(p50), benchkit.Ms(p99), ratio, bare50, bare99, over,
		benchkit.Ms(p.first.Pct(50)), bareFirst, added, cpu}
}
