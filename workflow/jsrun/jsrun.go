// Package jsrun runs the JavaScript of workflow code nodes in-process with
// goja, within limits: a time limit (a runaway loop is interrupted), a
// memory limit (code that keeps allocating is interrupted), a bounded call
// stack, guards on the built-ins that allocate a lot at once, and a bound
// on how many runs execute at once (the others wait their turn). Each run
// gets a fresh VM: nothing leaks from one run to the next.
package jsrun

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"runtime"
	"runtime/debug"
	"strings"
	"time"

	"github.com/dop251/goja"
)

// Limits bound one run.
type Limits struct {
	Timeout  time.Duration // wall time of a run
	Memory   int64         // bytes of heap a run may grow by
	MaxStack int           // call depth
	MaxLogs  int           // bytes of console output kept
	// Concurrency is how many runs execute at once; the others wait,
	// at most their time limit.
	Concurrency int
}

// Program is compiled code, reusable by any number of runs.
type Program struct {
	prog *goja.Program
	src  string
}

// Source returns the code the program was compiled from, for runners that
// compile it again elsewhere (a worker process).
func (p *Program) Source() string { return p.src }

// Compile compiles code that defines a function main. The error reads like
// a syntax error of the code, with its line.
func Compile(code string) (*Program, error) {
	p, err := goja.Compile("code", code, false)
	if err != nil {
		return nil, fmt.Errorf("syntax error: %v", err)
	}
	return &Program{prog: p, src: code}, nil
}

// Runner runs programs within limits. It is safe for concurrent use.
type Runner struct {
	lim   Limits
	guard *memGuard
	slots slots
	pre   *goja.Program
}

// NewRunner returns a runner with the given limits (zero fields take 5s,
// 64 MiB, 1000 frames, 8 KiB of logs and GOMAXPROCS runs at once).
func NewRunner(lim Limits) *Runner {
	if lim.Timeout <= 0 {
		lim.Timeout = 5 * time.Second
	}
	if lim.Memory <= 0 {
		lim.Memory = 64 << 20
	}
	if lim.MaxStack <= 0 {
		lim.MaxStack = 1000
	}
	if lim.MaxLogs <= 0 {
		lim.MaxLogs = 8 << 10
	}
	if lim.Concurrency <= 0 {
		lim.Concurrency = runtime.GOMAXPROCS(0)
	}
	return &Runner{lim: lim, guard: newMemGuard(), slots: make(slots, lim.Concurrency),
		pre: goja.MustCompile("guards", guards(lim.Memory), true)}
}

// Result is what a run returns: main's result as JSON values, and what it
// printed with console.log.
type Result struct {
	Value any
	Logs  string
}

// Errors of runs that hit a limit.
var (
	ErrTimeout = errors.New("the code ran longer than its time limit and was stopped")
	ErrMemory  = errors.New("the code used more memory than its limit and was stopped")
)

// Run calls main({params}) with params (JSON values) and returns its
// result, awaiting it when main is async. timeout overrides the runner's
// when positive; a run first waits for a turn, at most timeout, when the
// runner's bound on concurrent runs is reached. Errors: the code's own
// exceptions (with their message and line), ErrTimeout, ErrMemory,
// ErrBusy, or ctx's error.
func (r *Runner) Run(ctx context.Context, p *Program, params map[string]any, timeout time.Duration) (Result, error) {
	if timeout <= 0 {
		timeout = r.lim.Timeout
	}
	if err := r.slots.acquire(ctx, timeout); err != nil {
		return Result{}, err
	}
	defer r.slots.release()
	res, err := r.run(ctx, p, params, timeout)
	if errors.Is(err, ErrMemory) {
		// The run's VM is garbage now: collect it and give its pages
		// back before the next run takes the slot, so runs stopped for
		// memory do not pile up in the host's resident memory.
		debug.FreeOSMemory()
	}
	return res, err
}

// run executes p in a fresh VM, within the limits.
func (r *Runner) run(ctx context.Context, p *Program, params map[string]any, timeout time.Duration) (Result, error) {
	vm := goja.New()
	vm.SetMaxCallStackSize(r.lim.MaxStack)
	logs := &logBuffer{max: r.lim.MaxLogs}
	if err := r.setup(vm, logs); err != nil {
		return Result{}, err
	}
	stop := r.watch(ctx, vm, timeout)
	defer stop()
	v, err := call(vm, p, params)
	if err != nil {
		return Result{Logs: logs.String()}, explain(err)
	}
	return Result{Value: v, Logs: logs.String()}, nil
}

// watch interrupts the VM when the time limit passes, ctx ends, or memory
// grows past the limit; stop ends the watch.
func (r *Runner) watch(ctx context.Context, vm *goja.Runtime, timeout time.Duration) (stop func()) {
	timer := time.AfterFunc(timeout, func() { vm.Interrupt(ErrTimeout) })
	unhook := context.AfterFunc(ctx, func() { vm.Interrupt(ctx.Err()) })
	endGuard := r.guard.watch(r.lim.Memory, func() { vm.Interrupt(ErrMemory) })
	return func() {
		timer.Stop()
		unhook()
		endGuard()
	}
}

func (r *Runner) setup(vm *goja.Runtime, logs *logBuffer) error {
	console := vm.NewObject()
	logFn := func(call goja.FunctionCall) goja.Value {
		parts := make([]string, len(call.Arguments))
		for i, a := range call.Arguments {
			parts[i] = a.String()
		}
		logs.add(strings.Join(parts, " "))
		return goja.Undefined()
	}
	for _, name := range []string{"log", "info", "warn", "error", "debug"} {
		if err := console.Set(name, logFn); err != nil {
			return err
		}
	}
	if err := vm.Set("console", console); err != nil {
		return err
	}
	_, err := vm.RunProgram(r.pre)
	return err
}

// call runs the program, then main({params}), and exports its result
// through JSON so only plain values leave the VM.
func call(vm *goja.Runtime, p *Program, params map[string]any) (any, error) {
	if _, err := vm.RunProgram(p.prog); err != nil {
		return nil, err
	}
	main, ok := goja.AssertFunction(vm.Get("main"))
	if !ok {
		return nil, errors.New("the code defines no function main; write function main({ params }) { ... }")
	}
	in, err := json.Marshal(map[string]any{"params": params})
	if err != nil {
		return nil, err
	}
	arg, err := vm.RunString("(" + string(in) + ")")
	if err != nil {
		return nil, err
	}
	v, err := main(goja.Undefined(), arg)
	if err != nil {
		return nil, err
	}
	if prom, ok := v.Export().(*goja.Promise); ok {
		switch prom.State() {
		case goja.PromiseStateRejected:
			return nil, fmt.Errorf("main's promise was rejected: %v", prom.Result())
		case goja.PromiseStatePending:
			return nil, errors.New("main's promise never settled; await every promise it starts")
		}
		v = prom.Result()
	}
	return exportJSON(vm, v)
}

func exportJSON(vm *goja.Runtime, v goja.Value) (any, error) {
	if v == nil || goja.IsUndefined(v) || goja.IsNull(v) {
		return nil, nil
	}
	stringify, _ := goja.AssertFunction(vm.Get("JSON").ToObject(vm).Get("stringify"))
	s, err := stringify(goja.Undefined(), v)
	if err != nil {
		return nil, err
	}
	var out any
	dec := json.NewDecoder(strings.NewReader(s.String()))
	dec.UseNumber()
	if err := dec.Decode(&out); err != nil {
		return nil, fmt.Errorf("main returned a value that is not JSON: %v", err)
	}
	return out, nil
}

// explain turns a goja error into what a builder reads.
func explain(err error) error {
	var intr *goja.InterruptedError
	if errors.As(err, &intr) {
		if e, ok := intr.Value().(error); ok {
			return e
		}
		return fmt.Errorf("the code was stopped: %v", intr.Value())
	}
	var so *goja.StackOverflowError
	if errors.As(err, &so) {
		return errors.New("the code recursed too deeply (call stack exceeded)")
	}
	var ex *goja.Exception
	if errors.As(err, &ex) {
		return errors.New(strings.TrimSpace(ex.Error()))
	}
	return err
}

// logBuffer keeps console output up to max bytes.
type logBuffer struct {
	b   strings.Builder
	max int
}

func (l *logBuffer) add(s string) {
	if l.b.Len() >= l.max {
		return
	}
	if l.b.Len()+len(s)+1 > l.max {
		s = s[:max(0, l.max-l.b.Len()-1)] + "…"
	}
	l.b.WriteString(s)
	l.b.WriteByte('\n')
}

func (l *logBuffer) String() string { return strings.TrimRight(l.b.String(), "\n") }
