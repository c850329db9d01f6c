package pyrun

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"syscall"
	"time"

	"github.com/pergola-ai/pergola/workflow/internal/procnice"
)

// worker is one started sandbox waiting for its job.
type worker struct {
	cmd    *exec.Cmd
	stdin  io.WriteCloser
	stdout io.ReadCloser
	exited chan struct{} // closed when the sandbox has ended
}

// start starts a sandbox in a process group of its own. Its stdout is a
// pipe of ours, not exec's: Wait, which watches for its end, must not
// close it before the answer is read.
func (r *Runner) start() (*worker, error) {
	args := r.args()
	cmd := exec.Command(args[0], args[1:]...)
	cmd.Env = []string{}
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	stdin, err := cmd.StdinPipe()
	if err != nil {
		return nil, err
	}
	stdout, out, err := os.Pipe()
	if err != nil {
		return nil, err
	}
	cmd.Stdout = out
	err = cmd.Start()
	_ = out.Close()
	if err != nil {
		_ = stdout.Close()
		return nil, err
	}
	w := &worker{cmd: cmd, stdin: stdin, stdout: stdout, exited: make(chan struct{})}
	go func() { _ = cmd.Wait(); close(w.exited) }()
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
	<-w.exited
	_ = w.stdout.Close()
}

// end ends the worker after its run: a sandbox that answered exits by
// itself (and is left a moment to, so that its processes are reaped in
// order); one that did not is killed.
func (w *worker) end(answered bool) {
	if answered {
		select {
		case <-w.exited:
		case <-time.After(time.Second):
		}
	}
	w.kill()
}

// pipes are the worker's stdin and stdout.
func (w *worker) pipes() (io.WriteCloser, io.Reader) { return w.stdin, w.stdout }

// root is the process of the worker's bwrap, whose tree is its sandbox.
func (w *worker) root() int { return w.cmd.Process.Pid }

// alive tells whether the sandbox still runs (one may die waiting).
func (w *worker) alive() bool {
	select {
	case <-w.exited:
		return false
	default:
		return true
	}
}

// sandbox is what serves one run: a worker, or a child of its
// workspace's fork server (zygote.go).
type sandbox interface {
	pipes() (job io.WriteCloser, answer io.Reader)
	// root is the host's id of the process whose tree runs the job (0 when
	// it has ended).
	root() int
	// end ends it after its run, answered or not.
	end(answered bool)
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
	if err := r.pool.acquire(ctx, timeout); err != nil {
		return nil, err
	}
	defer r.pool.release()
	tenant := r.tenant(ctx)
	defer r.pool.enter(tenant)()
	w, err := r.sandbox(tenant, time.Now().Add(min(timeout, zygoteFork)))
	if err != nil {
		return nil, fmt.Errorf("start a Python sandbox: %w", err)
	}
	if r.onRun != nil {
		r.onRun(w.root())
	}
	answered, demoted := false, r.demoteLater(w)
	defer func() {
		a := answered
		go func() { demoted(); w.end(a) }() // the answer does not wait for the sandbox's teardown
	}()
	line, _ := json.Marshal(job)
	in, out := w.pipes()
	go func() {
		_, _ = in.Write(append(line, '\n'))
		_ = in.Close()
	}()
	type read struct {
		b   []byte
		err error
	}
	done := make(chan read, 1)
	go func() {
		// One line answers; a longer one than the limit is cut there.
		b, err := bufio.NewReader(io.LimitReader(out, r.lim.Output+1)).ReadBytes('\n')
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
		answered = got.err == nil
		return r.decode(got.b, got.err)
	}
}

// sandbox returns what serves a run of tenant: a child of tenant's fork
// server when it has one ready and it forks before forkBy, else a worker
// of the pool.
func (r *Runner) sandbox(tenant int64, forkBy time.Time) (sandbox, error) {
	if c := r.fromZygote(tenant, forkBy); c != nil {
		return c, nil
	}
	return r.take(tenant)
}

// demoteLater renices every process of w's tree to procnice.Demoted once
// its run has gone on for Limits.DemoteAfter. The function it returns
// stops the wait, or waits for the renice to finish, so that the sandbox
// is ended (and its process ids freed) only after.
func (r *Runner) demoteLater(w sandbox) func() {
	if r.lim.DemoteAfter <= 0 {
		return func() {}
	}
	done := make(chan struct{})
	t := time.AfterFunc(r.lim.DemoteAfter, func() {
		defer close(done)
		if pid := w.root(); pid > 0 {
			_ = procnice.Tree(pid, procnice.Demoted) // fails only for a sandbox that ended
		}
	})
	return func() {
		if !t.Stop() {
			<-done
		}
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
			err = jerr
		}
		return nil, fmt.Errorf("the Python sandbox ended without an answer (killed, or out of memory or CPU time?): %w", err)
	}
	return &a, nil
}
