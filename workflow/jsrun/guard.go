package jsrun

import (
	"runtime"
	"runtime/metrics"
	"strconv"
	"sync"
	"time"
)

// guards is run in every VM before the code: the built-ins that allocate
// a large block in one call (which no watchdog can interrupt midway)
// refuse sizes beyond the memory limit.
func guards(memory int64) string {
	return `(function (max) {
  "use strict";
  function tooBig(what) { throw new RangeError(what + " would exceed the code node's memory limit"); }
  var repeat = String.prototype.repeat, padStart = String.prototype.padStart, padEnd = String.prototype.padEnd;
  function define(name, fn) {
    Object.defineProperty(String.prototype, name, { value: fn, writable: true, configurable: true });
  }
  define("repeat", function (n) {
    if (String(this).length * Number(n) * 2 > max) tooBig("repeat");
    return repeat.call(this, n);
  });
  define("padStart", function (n, s) {
    if (Number(n) * 2 > max) tooBig("padStart");
    return padStart.call(this, n, s);
  });
  define("padEnd", function (n, s) {
    if (Number(n) * 2 > max) tooBig("padEnd");
    return padEnd.call(this, n, s);
  });
  var global = Function("return this")();
  ["ArrayBuffer", "Int8Array", "Uint8Array", "Uint8ClampedArray", "Int16Array", "Uint16Array",
   "Int32Array", "Uint32Array", "Float32Array", "Float64Array"].forEach(function (name) {
    var Ctor = global[name];
    if (typeof Ctor !== "function") return;
    var size = Ctor.BYTES_PER_ELEMENT || 1;
    global[name] = new Proxy(Ctor, {
      construct: function (target, args) {
        if (typeof args[0] === "number" && args[0] * size > max) tooBig("new " + name);
        return Reflect.construct(target, args);
      }
    });
  });
})(` + strconv.FormatInt(memory, 10) + `);`
}

// memGuard watches the heap while code runs and reports growth past a
// limit. Go has no per-goroutine memory accounting, so the measure is the
// process's heap above where it stood when the run began; when it looks
// exceeded, a garbage collection confirms that the memory is really held
// before the run is stopped. Runs allocating at the same time share the
// measure, so the limit errs on the strict side under concurrency.
type memGuard struct {
	mu     sync.Mutex
	lastGC time.Time
}

const (
	heapMetric   = "/memory/classes/heap/objects:bytes"
	guardTick    = 5 * time.Millisecond
	minGCSpacing = 50 * time.Millisecond
)

func newMemGuard() *memGuard { return &memGuard{} }

// heap returns the bytes of heap objects, live or not yet swept.
func (g *memGuard) heap() int64 {
	s := []metrics.Sample{{Name: heapMetric}}
	metrics.Read(s)
	if s[0].Value.Kind() != metrics.KindUint64 {
		return 0
	}
	return int64(s[0].Value.Uint64())
}

// watch calls over once the heap has grown more than limit bytes since
// the watch began; the returned function ends the watch.
func (g *memGuard) watch(limit int64, over func()) (stop func()) {
	base := g.heap()
	done := make(chan struct{})
	go func() {
		t := time.NewTicker(guardTick)
		defer t.Stop()
		for {
			select {
			case <-done:
				return
			case <-t.C:
			}
			cur := g.heap()
			base = min(base, cur)
			if cur-base <= limit {
				continue
			}
			g.collect() // a collection that ran very recently counts too
			if g.heap()-base <= limit {
				continue
			}
			over()
			return
		}
	}()
	var once sync.Once
	return func() { once.Do(func() { close(done) }) }
}

// collect runs a garbage collection unless one ran very recently.
func (g *memGuard) collect() {
	g.mu.Lock()
	if time.Since(g.lastGC) < minGCSpacing {
		g.mu.Unlock()
		return
	}
	g.lastGC = time.Now()
	g.mu.Unlock()
	runtime.GC()
}
