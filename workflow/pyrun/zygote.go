package pyrun

import (
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/pergola-ai/pergola/workflow/internal/procnice"
)

// zygote is a workspace's fork server: a sandbox like a worker's whose
// interpreter, the driver imported and warm, runs no code itself but
// forks a child per run (driver.py, zygote). The child sets the filter
// and limits a worker sets before it reads its job, on two pipes that
// belong to its run: the runner passes their far ends over a unix socket
// (fd 3 of the sandbox) and the server closes its copies once it has
// forked, so a child holds no pipe of another run. A run's start is then
// a fork (about a millisecond) instead of a sandbox's start.
//
// The children of one workspace's runs share that parent, which never ran
// a job and holds no job's data, and a sandbox (they see each other's
// process ids, the parent's hash seed and memory layout); the filter
// keeps them from signalling, tracing or limiting one another, and they
// are non-dumpable, so none reads another's memory, environment or file
// descriptors. A workspace never has another's server.
type zygote struct {
	tenant int64
	cmd    *exec.Cmd
	ctl    *net.UnixConn // our end of the socket; fd 3 in the sandbox
	exited chan struct{} // closed when the sandbox has ended
	mu     sync.Mutex    // one fork at a time on ctl
	failed bool          // under mu: a request failed, so a late reply may be pending; no more

	// Under the registry's lock (zygotes.mu):
	ready   bool      // started; a server not ready serves no run
	gone    bool      // out of the registry: ended once no run uses it
	running int       // runs its children serve
	used    time.Time // when a run last took or left it
}

// zygoteStart bounds how long a fork server may take to start, and
// zygoteFork how long it may take to fork (then the run takes a worker).
const (
	zygoteStart = 30 * time.Second
	zygoteFork  = 2 * time.Second
)

// start starts z's sandbox and waits until it is ready.
func (z *zygote) start(args []string) error {
	fds, err := syscall.Socketpair(syscall.AF_UNIX, syscall.SOCK_SEQPACKET|syscall.SOCK_CLOEXEC, 0)
	if err != nil {
		return fmt.Errorf("a socket for the fork server: %w", err)
	}
	ours, theirs := os.NewFile(uintptr(fds[0]), "zygote"), os.NewFile(uintptr(fds[1]), "zygote")
	defer theirs.Close()
	conn, err := net.FileConn(ours)
	_ = ours.Close()
	if err != nil {
		return err
	}
	z.ctl = conn.(*net.UnixConn)
	z.cmd = exec.Command(args[0], append(args[1:], "zygote")...)
	z.cmd.Env = []string{}
	z.cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	z.cmd.ExtraFiles = []*os.File{theirs} // fd 3
	z.exited = make(chan struct{})
	if err := z.cmd.Start(); err != nil {
		_ = z.ctl.Close()
		return err
	}
	go func() { _ = z.cmd.Wait(); close(z.exited) }()
	_ = z.ctl.SetReadDeadline(time.Now().Add(zygoteStart))
	ready := make([]byte, 1)
	if n, err := z.ctl.Read(ready); err != nil || n != 1 || ready[0] != 'R' {
		z.kill()
		return fmt.Errorf("the fork server did not start (%v)", err)
	}
	return nil
}

// kill ends z's sandbox, its children with it.
func (z *zygote) kill() {
	if z.alive() { // once reaped, its group's id may be another's
		_ = syscall.Kill(-z.cmd.Process.Pid, syscall.SIGKILL)
	}
	<-z.exited
	_ = z.ctl.Close()
}

// alive tells whether z's sandbox still runs.
func (z *zygote) alive() bool {
	select {
	case <-z.exited:
		return false
	default:
		return true
	}
}

// fork has z fork a child for one run, waiting for its answer until
// deadline.
func (z *zygote) fork(deadline time.Time) (*child, error) {
	jobR, jobW, err := os.Pipe()
	if err != nil {
		return nil, err
	}
	defer jobR.Close() // the server and the child hold their own copies once sent
	ansR, ansW, err := os.Pipe()
	if err != nil {
		_ = jobW.Close()
		return nil, err
	}
	defer ansW.Close()
	pid, err := z.request(deadline, int(jobR.Fd()), int(ansW.Fd()))
	if err != nil {
		_, _ = jobW.Close(), ansR.Close()
		return nil, err
	}
	return &child{z: z, pid: pid, in: jobW, out: ansR}, nil
}

// request sends the fork server the two ends of a run's pipes and reads
// the process id of the child it forked.
func (z *zygote) request(deadline time.Time, fds ...int) (int, error) {
	z.mu.Lock()
	defer z.mu.Unlock()
	if z.failed {
		return 0, errors.New("the fork server failed before")
	}
	_ = z.ctl.SetDeadline(deadline)
	pid, err := z.exchange(fds)
	z.failed = err != nil
	return pid, err
}

// exchange is one request and its reply. z.mu is held.
func (z *zygote) exchange(fds []int) (int, error) {
	if _, _, err := z.ctl.WriteMsgUnix([]byte{'F'}, syscall.UnixRights(fds...), nil); err != nil {
		return 0, err
	}
	b := make([]byte, 16)
	n, err := z.ctl.Read(b)
	if err != nil {
		return 0, err
	}
	pid, err := strconv.Atoi(string(b[:n]))
	if err != nil || pid <= 0 {
		return 0, errors.New("the fork server did not fork")
	}
	return pid, nil
}

// hostPid is the host's id of z's process whose id in the sandbox is pid,
// or 0. Ids in a pid namespace are handed out in turn up to pid_max, so
// one that ended is not another's before tens of thousands of forks.
func (z *zygote) hostPid(pid int) int {
	for _, p := range procnice.Descendants(z.cmd.Process.Pid)[1:] {
		if innerPid(p) == pid {
			return p
		}
	}
	return 0
}

// innerPid is process p's id in its innermost pid namespace: the last of
// the NSpid line of its status (0 when unknown).
func innerPid(p int) int {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(p) + "/status")
	if err != nil {
		return 0
	}
	for _, line := range strings.Split(string(b), "\n") {
		if rest, ok := strings.CutPrefix(line, "NSpid:"); ok {
			f := strings.Fields(rest)
			if len(f) == 0 {
				return 0
			}
			n, _ := strconv.Atoi(f[len(f)-1])
			return n
		}
	}
	return 0
}

// child is a fork server's child serving one run.
type child struct {
	z       *zygote
	pid     int // in the sandbox
	in, out *os.File
	done    func() // tells the registry the run ended
}

func (c *child) pipes() (io.WriteCloser, io.Reader) { return c.in, c.out }

func (c *child) root() int { return c.z.hostPid(c.pid) }

// end ends the child after its run: one that answered exits by itself;
// one that did not is killed (its fork server lives on).
func (c *child) end(answered bool) {
	if !answered {
		if p := c.root(); p > 0 {
			_ = syscall.Kill(p, syscall.SIGKILL)
		}
	}
	_, _ = c.in.Close(), c.out.Close()
	c.done()
}
