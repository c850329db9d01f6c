// Package jsproc runs the JavaScript of workflow code nodes in a pool of
// warm worker processes, each with a hard memory limit of its own: code
// that outgrows it kills its worker, never the server, whose resident
// memory does not grow with what the code allocates. Inside a worker, runs
// go through jsrun (a fresh VM each, the time and memory watch, the
// guarded built-ins), so the common case still ends with a graceful error.
// Workers get an empty environment, die with the server, and are replaced
// when they die or are killed for outliving a run's time limit.
//
// A worker is the server's own binary re-executed with a hidden
// sub-command whose entry point is Serve.
package jsproc

import (
	"context"
	"log/slog"
	"runtime"
	"sync"
	"time"

	"github.com/pergola-ai/pergola/workflow/internal/procnice"
	"github.com/pergola-ai/pergola/workflow/jsrun"
)

// Config configures a pool.
type Config struct {
	// Command starts a worker: a binary whose arguments make it call
	// Serve on its stdin and stdout (pergola coderun).
	Command []string
	// Workers is how many code nodes run at once, one per worker
	// process; the others wait their turn, at most their time limit.
	// 0: GOMAXPROCS.
	Workers int
	// Limits bound each run as in jsrun (Concurrency is Workers').
	Limits jsrun.Limits
	// HardMemory is the bytes of data a worker process may map
	// (RLIMIT_DATA, which counts address space mapped writable, touched
	// or not); past it the worker dies and the run gets jsrun.ErrMemory.
	// 0: 128 MiB (an idle worker maps about 75 MiB, mostly never
	// touched: the Go runtime's heap index) plus three times
	// Limits.Memory (a run's growth, the watch's margin, garbage).
	HardMemory int64
	// Grace is how long past its time limit a run's worker may take to
	// answer before it is killed. 0: one second.
	Grace time.Duration
	// MaxResult is the bytes of a run's result and logs as JSON: what
	// the server reads of a run, whatever the code does. 0: 4 MiB.
	MaxResult int
	// Nice is the nice value workers run at (0 to 19; 0: the server's):
	// a positive one lets the server's own work and runs that wake up go
	// before code that computes for long.
	Nice int
	// DemoteAfter is how long a run may go before its worker is reniced
	// to procnice.Demoted, so that runs that wake up go first; a worker
	// so demoted is replaced after its run (a nice value cannot be
	// lowered back without privilege). 0, or Nice at procnice.Demoted
	// already: never.
	DemoteAfter time.Duration
	Log         *slog.Logger // nil: slog.Default()
}

func (c Config) withDefaults() Config {
	if c.Workers <= 0 {
		c.Workers = runtime.GOMAXPROCS(0)
	}
	if c.Limits.Timeout <= 0 {
		c.Limits.Timeout = 5 * time.Second
	}
	if c.Limits.Memory <= 0 {
		c.Limits.Memory = 64 << 20
	}
	if c.HardMemory <= 0 {
		c.HardMemory = 128<<20 + 3*c.Limits.Memory
	}
	if c.Grace <= 0 {
		c.Grace = time.Second
	}
	if c.MaxResult <= 0 {
		c.MaxResult = 4 << 20
	}
	if c.Log == nil {
		c.Log = slog.Default()
	}
	return c
}

// Pool runs programs in worker processes. It is safe for concurrent use.
type Pool struct {
	cfg   Config
	hello hello
	free  chan *worker // idle workers; nil stands for a worker not started yet
	spawn *spawner
	mu    sync.Mutex
	live  map[*worker]struct{}
	done  bool
}

// New returns a pool; workers start on first use.
func New(cfg Config) *Pool {
	cfg = cfg.withDefaults()
	p := &Pool{cfg: cfg, free: make(chan *worker, cfg.Workers), spawn: newSpawner(cfg.Nice), live: map[*worker]struct{}{},
		hello: hello{Memory: cfg.Limits.Memory, HardMemory: cfg.HardMemory, MaxStack: cfg.Limits.MaxStack,
			MaxLogs: cfg.Limits.MaxLogs, MaxFrame: cfg.MaxResult}}
	for range cfg.Workers {
		p.free <- nil
	}
	return p
}

// Run runs prog in a worker as jsrun.Runner.Run does in-process, with the
// same errors: the code's own, jsrun.ErrTimeout, jsrun.ErrMemory (the
// watch stopped the code, or it outgrew its worker), jsrun.ErrBusy (no
// worker was free within timeout), ctx's error; or an error starting or
// talking to the worker.
func (p *Pool) Run(ctx context.Context, prog *jsrun.Program, params map[string]any, timeout time.Duration) (jsrun.Result, error) {
	if timeout <= 0 {
		timeout = p.cfg.Limits.Timeout
	}
	w, err := p.acquire(ctx, timeout)
	if err != nil {
		return jsrun.Result{}, err
	}
	req := request{Code: prog.Source(), Params: params, TimeoutMS: max(1, timeout.Milliseconds())}
	demoted := p.demoteLater(w)
	res, err := w.run(ctx, req, timeout+p.cfg.Grace, p.cfg.MaxResult+(1<<10))
	p.release(w, demoted())
	return res, err
}

// demoteLater renices w's process to procnice.Demoted once its run has
// gone on for DemoteAfter. The function it returns, called when the run
// is over, stops the wait and reports whether w was demoted; it returns
// only after the renice, so that w's process id is not reused meanwhile.
func (p *Pool) demoteLater(w *worker) func() bool {
	if p.cfg.DemoteAfter <= 0 || p.cfg.Nice >= procnice.Demoted {
		return func() bool { return false }
	}
	done := make(chan struct{})
	t := time.AfterFunc(p.cfg.DemoteAfter, func() {
		defer close(done)
		_ = procnice.Process(w.cmd.Process.Pid, procnice.Demoted) // fails only for a worker that died: replaced anyway
	})
	return func() bool {
		if t.Stop() {
			return false
		}
		<-done
		return true
	}
}

// acquire takes an idle worker, starting one in a free slot or in place of
// a dead one, waiting at most wait or until ctx ends.
func (p *Pool) acquire(ctx context.Context, wait time.Duration) (*worker, error) {
	if err := ctx.Err(); err != nil {
		return nil, err // not a worker killed for a run that cannot start
	}
	t := time.NewTimer(wait)
	defer t.Stop()
	var w *worker
	select {
	case w = <-p.free:
	case <-ctx.Done():
		return nil, ctx.Err()
	case <-t.C:
		return nil, jsrun.ErrBusy
	}
	if w == nil {
		if w = p.preferStarted(); w != nil {
			p.free <- nil // the slot drawn first goes back: room, two were taken
		}
	}
	if w != nil && w.usable() {
		return w, nil
	}
	if w != nil {
		p.drop(w, "it died while idle")
	}
	w, err := p.start()
	if err != nil {
		p.free <- nil
		return nil, err
	}
	return w, nil
}

// preferStarted looks for an idle started worker when a run drew a slot
// with none started yet: the run then skips a process start, and workers
// start only when the runs at once outnumber those started. It returns
// nil when there is none; the slots it looked at go back.
func (p *Pool) preferStarted() *worker {
	var looked int
	defer func() {
		for range looked {
			p.free <- nil // room: each was taken just now
		}
	}()
	for range cap(p.free) {
		select {
		case w := <-p.free:
			if w != nil {
				return w
			}
			looked++
		default:
			return nil
		}
	}
	return nil
}

// release gives a worker back after a run, or replaces it in the
// background when the run killed or demoted it.
func (p *Pool) release(w *worker, demoted bool) {
	switch {
	case w.alive() && !demoted:
		p.free <- w
		return
	case w.alive():
		p.retire(w)
	default:
		p.drop(w, "its run killed it")
	}
	go func() {
		nw, err := p.start()
		if err != nil {
			p.free <- nil // the next run tries again, and reports the error
			return
		}
		p.free <- nw
	}()
}

// start starts a worker and registers it.
func (p *Pool) start() (*worker, error) {
	w, err := startWorker(p.spawn, p.cfg.Command, p.hello)
	if err != nil {
		return nil, err
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.done {
		go w.discard()
		return nil, errClosed
	}
	p.live[w] = struct{}{}
	return w, nil
}

// drop discards a dead or killed worker and logs why it ended.
func (p *Pool) drop(w *worker, why string) {
	p.forget(w)
	p.cfg.Log.Info("code worker process replaced", "reason", why, "pid", w.cmd.Process.Pid, "exit", w.waitErr,
		"stderr", firstLine(w.stderr.String()))
}

// retire discards a worker demoted by its run, which ended: its
// replacement runs at the pool's nice value.
func (p *Pool) retire(w *worker) {
	p.forget(w)
	p.cfg.Log.Debug("code worker process replaced", "reason", "its run went on long enough to be demoted", "pid", w.cmd.Process.Pid)
}

// forget kills a worker, waits until it is reaped and takes it off the
// live ones.
func (p *Pool) forget(w *worker) {
	w.discard()
	p.mu.Lock()
	delete(p.live, w)
	p.mu.Unlock()
}

// Close kills every worker and waits until they are reaped; runs under
// way fail, and later runs get an error.
func (p *Pool) Close() error {
	p.mu.Lock()
	p.done = true
	live := make([]*worker, 0, len(p.live))
	for w := range p.live {
		live = append(live, w)
	}
	clear(p.live)
	p.mu.Unlock()
	for _, w := range live {
		w.discard()
	}
	p.spawn.close()
	return nil
}

// pids returns the process ids of the live workers.
func (p *Pool) pids() []int {
	p.mu.Lock()
	defer p.mu.Unlock()
	out := make([]int, 0, len(p.live))
	for w := range p.live {
		out = append(out, w.cmd.Process.Pid)
	}
	return out
}
