package jsrun

import (
	_ "embed"
	"runtime/metrics"
	"strconv"
	"sync"
	"time"
)

//go:embed guards.js
var guardsJS string

// guards returns the script run in every VM before the code: guards.js
// applied to the memory limit.
func guards(memory int64) string {
	return guardsJS + "(" + strconv.FormatInt(memory, 10) + ");"
}

// memGuard watches the heap while code runs and stops runs that grow it
// past their limit. Go has no per-goroutine memory accounting, so the
// measure is the process's heap objects (live, or dead and not yet swept)
// above where they stood when the run began, sampled every millisecond by
// one goroutine for all runs. Growth past the limit stops the run once a
// garbage collection that began afterwards leaves it still past; growth
// past half as much again stops it at once, without waiting: a doubling
// string outruns any collection. No collection is forced (each would stop
// the world while the string is copied, delaying the watch); the runtime
// runs them as the heap grows. Runs at the same time share the measure:
// one run's growth counts against another (strict), and memory another
// frees can hide a run's growth for a while (lenient), so one run at a
// time gives the tightest bound.
type memGuard struct {
	mu      sync.Mutex
	watches map[*heapWatch]struct{}
	running bool // loop runs
}

const guardTick = time.Millisecond

func newMemGuard() *memGuard {
	return &memGuard{watches: map[*heapWatch]struct{}{}}
}

// heapSample is one reading of the heap.
type heapSample struct {
	objects int64  // bytes of heap objects, live or not yet swept
	live    int64  // bytes the last finished collection found live
	cycles  uint64 // collections finished
}

// sample reads the heap.
func sample() heapSample {
	s := []metrics.Sample{{Name: "/memory/classes/heap/objects:bytes"}, {Name: "/gc/heap/live:bytes"},
		{Name: "/gc/cycles/total:gc-cycles"}}
	metrics.Read(s)
	for _, m := range s {
		if m.Value.Kind() != metrics.KindUint64 {
			return heapSample{}
		}
	}
	return heapSample{objects: int64(s[0].Value.Uint64()), live: int64(s[1].Value.Uint64()), cycles: s[2].Value.Uint64()}
}

// watch calls over once the heap has grown past limit since the watch
// began (confirmed by a collection) or past hardLimit(limit) at all; the
// returned function ends the watch.
func (g *memGuard) watch(limit int64, over func()) (stop func()) {
	w := &heapWatch{limit: limit, hard: hardLimit(limit), base: sample().objects, over: over}
	g.mu.Lock()
	g.watches[w] = struct{}{}
	if !g.running {
		g.running = true
		go g.loop()
	}
	g.mu.Unlock()
	return func() {
		g.mu.Lock()
		delete(g.watches, w)
		g.mu.Unlock()
	}
}

// loop samples the heap every tick for every watch, until none is left.
func (g *memGuard) loop() {
	t := time.NewTicker(guardTick)
	defer t.Stop()
	for range t.C {
		if !g.check() {
			return
		}
	}
}

// check samples the heap once for every watch, stopping the runs that are
// over; it reports whether any watch is left, and ends the loop if none.
func (g *memGuard) check() bool {
	g.mu.Lock()
	defer g.mu.Unlock()
	cur := sample()
	for w := range g.watches {
		if w.exceeded(cur) {
			w.over()
			delete(g.watches, w)
		}
	}
	g.running = len(g.watches) > 0
	return g.running
}

// hardLimit is the growth that stops a run without a confirming
// collection: the limit and half as much again, room for garbage not yet
// collected.
func hardLimit(limit int64) int64 { return limit + limit/2 }

// heapWatch is the state of one watch.
type heapWatch struct {
	limit, hard int64
	base        int64
	ticket      uint64 // the count of collections that confirms, 0 for none
	over        func()
}

// exceeded applies a sample of the heap and reports whether the run is
// over: past the hard limit, or past the limit in what a collection that
// began after the growth was seen found live.
func (w *heapWatch) exceeded(cur heapSample) bool {
	w.base = min(w.base, cur.objects)
	grown := cur.objects - w.base
	switch {
	case grown <= w.limit:
		w.ticket = 0
		return false
	case grown > w.hard:
		return true
	case w.ticket == 0:
		w.ticket = cur.cycles + 2 // one may be under way: the next began afterwards
		return false
	}
	return cur.cycles >= w.ticket && cur.live-w.base > w.limit
}
