package jsproc

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/pergola-ai/pergola/workflow/jsrun"
)

// worker is one worker process and the pool's ends of its pipes.
type worker struct {
	cmd      *exec.Cmd
	stdin    *os.File
	stdoutF  *os.File
	stdout   *bufio.Reader
	stderr   *headBuffer
	exited   chan struct{} // closed once the process is reaped and its stderr read
	waitErr  error         // set before exited is closed
	broken   atomic.Bool   // killed, or failed: never reused
	timedOut atomic.Bool
}

// childEnv is a worker's whole environment: nothing of the server's (its
// secrets, its database addresses), and no goroutine dumps on a crash.
func childEnv() []string { return []string{"GOTRACEBACK=none"} }

// startWorker starts command as a worker through sp and sends it the
// limits.
func startWorker(sp *spawner, command []string, h hello) (*worker, error) {
	inR, inW, err := os.Pipe()
	if err != nil {
		return nil, err
	}
	outR, outW, err := os.Pipe()
	if err != nil {
		inR.Close()
		inW.Close()
		return nil, err
	}
	cmd := exec.Command(command[0], command[1:]...)
	cmd.Env, cmd.Stdin, cmd.Stdout, cmd.SysProcAttr = childEnv(), inR, outW, procAttr()
	w := &worker{cmd: cmd, stdin: inW, stdoutF: outR, stdout: bufio.NewReader(outR), stderr: &headBuffer{max: 4 << 10},
		exited: make(chan struct{})}
	cmd.Stderr = w.stderr
	err = sp.start(cmd)
	inR.Close()
	outW.Close()
	if err != nil {
		inW.Close()
		outR.Close()
		return nil, fmt.Errorf("starting a code worker process: %w", err)
	}
	go func() { w.waitErr = cmd.Wait(); close(w.exited) }()
	if err := writeFrame(w.stdin, h); err != nil {
		w.discard()
		return nil, fmt.Errorf("starting a code worker process: %w", err)
	}
	return w, nil
}

// run sends one request and reads its response, killing the worker when
// ctx ends or no response came within limit.
func (w *worker) run(ctx context.Context, req request, limit time.Duration, maxFrame int) (jsrun.Result, error) {
	stopCtx := context.AfterFunc(ctx, w.kill)
	timer := time.AfterFunc(limit, func() { w.timedOut.Store(true); w.kill() })
	defer func() { stopCtx(); timer.Stop() }()
	if err := writeFrame(w.stdin, req); err != nil {
		return jsrun.Result{}, w.failure(ctx, err)
	}
	var resp response
	if err := readFrame(w.stdout, maxFrame, &resp); err != nil {
		return jsrun.Result{}, w.failure(ctx, err)
	}
	return resp.result()
}

// result turns a response into what a run in-process returns.
func (r response) result() (jsrun.Result, error) {
	res := jsrun.Result{Value: r.Value, Logs: r.Logs}
	switch {
	case r.Kind == kindTimeout:
		return res, jsrun.ErrTimeout
	case r.Kind == kindMemory:
		return res, jsrun.ErrMemory
	case r.Kind == kindBusy:
		return res, jsrun.ErrBusy
	case r.Error != "":
		return res, errors.New(r.Error)
	}
	return res, nil
}

// failure explains why a worker gave no response: the run's context
// ended, the run outlived its limit, the process outgrew its hard memory
// limit (the runtime's "out of memory" on its stderr), the response was
// too large, the Go runtime crashed (reported as memory, see
// runtimeCrash), or the process died for another reason (killed from
// outside).
func (w *worker) failure(ctx context.Context, err error) error {
	w.kill()
	<-w.exited
	var large errFrameTooLarge
	switch {
	case ctx.Err() != nil:
		return ctx.Err()
	case w.timedOut.Load():
		return jsrun.ErrTimeout
	case w.outOfMemory():
		return jsrun.ErrMemory
	case errors.As(err, &large):
		return fmt.Errorf("main returned more than the %d bytes a code node may return", large.max)
	case w.runtimeCrash():
		return fmt.Errorf("%w (its worker process crashed, most likely at its hard memory limit: %s)",
			jsrun.ErrMemory, firstLine(w.stderr.String()))
	}
	return fmt.Errorf("the code's worker process failed (%v): %s", w.waitErr, firstLine(w.stderr.String()))
}

// outOfMemory reports whether the process died for want of memory.
func (w *worker) outOfMemory() bool {
	s := w.stderr.String()
	for _, sign := range []string{"out of memory", "cannot allocate memory", "errno=12"} {
		if strings.Contains(s, sign) {
			return true
		}
	}
	return false
}

// runtimeCrash reports whether the Go runtime of the process crashed: a
// worker runs only goja (whose panics become exceptions), so the likely
// cause is a mapping the hard memory limit refused on a path of the
// runtime that faults instead of reporting it (seen, rarely, on a loaded
// machine), or a thread whose stack the limit refused (pthread_create
// fails with EAGAIN).
func (w *worker) runtimeCrash() bool {
	s := w.stderr.String()
	for _, prefix := range []string{"fatal error:", "SIGSEGV", "unexpected signal", "runtime/cgo: pthread_create failed"} {
		if strings.HasPrefix(s, prefix) {
			return true
		}
	}
	return false
}

// kill ends the process (again is harmless) and marks the worker broken.
func (w *worker) kill() {
	w.broken.Store(true)
	_ = w.cmd.Process.Kill()
}

// alive reports whether the worker can take another request.
func (w *worker) alive() bool {
	select {
	case <-w.exited:
		return false
	default:
		return !w.broken.Load()
	}
}

// usable reports whether an idle worker can take a request: it is alive
// and its stdout has not hung up (a process that died has closed it, even
// before it is reaped). The check is one non-blocking read, which an idle
// worker has nothing for.
func (w *worker) usable() bool {
	if !w.alive() || w.stdout.Buffered() > 0 {
		return false
	}
	rc, err := w.stdoutF.SyscallConn()
	if err != nil {
		return false
	}
	var rerr error
	err = rc.Read(func(fd uintptr) bool {
		var b [1]byte
		_, rerr = syscall.Read(int(fd), b[:])
		return true
	})
	return err == nil && errors.Is(rerr, syscall.EAGAIN)
}

// discard kills the process, waits until it is reaped and closes the
// pipes.
func (w *worker) discard() {
	w.kill()
	<-w.exited
	w.stdin.Close()
	w.stdoutF.Close()
}

func firstLine(s string) string {
	for _, line := range strings.Split(s, "\n") {
		if line = strings.TrimSpace(line); line != "" {
			return line
		}
	}
	return "no message"
}

// headBuffer keeps the first max bytes written to it: a worker's stderr,
// which only a crash writes to.
type headBuffer struct {
	mu  sync.Mutex
	b   strings.Builder
	max int
}

func (h *headBuffer) Write(p []byte) (int, error) {
	h.mu.Lock()
	defer h.mu.Unlock()
	if room := h.max - h.b.Len(); room > 0 {
		h.b.Write(p[:min(len(p), room)])
	}
	return len(p), nil
}

func (h *headBuffer) String() string {
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.b.String()
}
