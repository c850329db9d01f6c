package pyrun

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os/exec"
	"syscall"
	"time"
)

// worker is one started sandbox waiting for its job.
type worker struct {
	cmd    *exec.Cmd
	stdin  io.WriteCloser
	stdout io.ReadCloser
}

// start starts a sandbox in a process group of its own.
func (r *Runner) start() (*worker, error) {
	args := r.args()
	cmd := exec.Command(args[0], args[1:]...)
	cmd.Env = []string{}
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	stdin, err := cmd.StdinPipe()
	if err != nil {
		return nil, err
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		return nil, err
	}
	if err := cmd.Start(); err != nil {
		return nil, err
	}
	w := &worker{cmd: cmd, stdin: stdin, stdout: stdout}
	ready := make([]byte, 1)
	if _, err := io.ReadFull(stdout, ready); err != nil || ready[0] != 'R' {
		w.kill()
		return nil, fmt.Errorf("the sandbox did not start (%v): can this machine make user namespaces?", err)
	}
	return w, nil
}

// kill ends the worker and everything it started.
func (w *worker) kill() {
	if w.cmd.Process != nil {
		_ = syscall.Kill(-w.cmd.Process.Pid, syscall.SIGKILL)
	}
	_ = w.cmd.Wait()
}

// take returns a warm worker, or a new one, and starts refilling.
func (r *Runner) take() (*worker, error) {
	select {
	case w := <-r.warm:
		go r.refill()
		return w, nil
	default:
		go r.refill()
		return r.start()
	}
}

// refill starts a worker to wait in the pool, unless it is full.
func (r *Runner) refill() {
	if len(r.warm) >= cap(r.warm) {
		return
	}
	w, err := r.start()
	if err != nil {
		return
	}
	select {
	case r.warm <- w:
	default:
		w.kill()
	}
}

// answer is what the driver writes.
type answer struct {
	Result any    `json:"result"`
	OK     bool   `json:"ok"`
	Error  string `json:"error"`
	Line   int    `json:"line"`
	Logs   string `json:"logs"`
}

// do sends one job to a worker and reads its answer within the timeout.
func (r *Runner) do(ctx context.Context, job map[string]any, timeout time.Duration) (*answer, error) {
	w, err := r.take()
	if err != nil {
		return nil, fmt.Errorf("start a Python sandbox: %w", err)
	}
	defer func() { go w.kill() }() // the answer does not wait for the sandbox's teardown
	line, _ := json.Marshal(job)
	go func() {
		_, _ = w.stdin.Write(append(line, '\n'))
		_ = w.stdin.Close()
	}()
	type read struct {
		b   []byte
		err error
	}
	done := make(chan read, 1)
	go func() {
		// One line answers; a longer one than the limit is cut there.
		b, err := bufio.NewReader(io.LimitReader(w.stdout, r.lim.Output+1)).ReadBytes('\n')
		done <- read{b, err}
	}()
	timer := time.NewTimer(timeout)
	defer timer.Stop()
	select {
	case <-ctx.Done():
		return nil, ctx.Err()
	case <-timer.C:
		return nil, ErrTimeout
	case got := <-done:
		return r.decode(got.b, got.err)
	}
}

func (r *Runner) decode(b []byte, err error) (*answer, error) {
	if int64(len(b)) > r.lim.Output {
		return nil, ErrOutput
	}
	var a answer
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.UseNumber()
	if jerr := dec.Decode(&a); jerr != nil {
		if err == nil {
			err = errors.New("the sandbox ended without an answer (out of memory or CPU time?)")
		}
		return nil, fmt.Errorf("Python code: %w", err)
	}
	return &a, nil
}
