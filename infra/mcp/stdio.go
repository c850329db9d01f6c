package mcp

import (
	"context"
	"fmt"
	"os/exec"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/pergola-ai/pergola/domain/errs"
)

// TransportStdio is a server this process starts, spoken to over its
// stdin and stdout.
const TransportStdio = "stdio"

// ErrNoSandbox is returned when the sandbox a stdio server needs is not
// on this machine.
var ErrNoSandbox = errs.New(errs.ErrUnavailable, "stdio MCP servers need bubblewrap (bwrap) and prlimit on the server: install them (Debian: apt-get install bubblewrap util-linux) or set PERGOLA_BWRAP")

// Sandbox is how stdio servers are run: the programs and the limits the
// kernel enforces on each server's processes.
type Sandbox struct {
	Bwrap   string        // bubblewrap (default: bwrap in PATH)
	Prlimit string        // util-linux's prlimit (default /usr/bin/prlimit, run inside the sandbox)
	Memory  int64         // bytes of address space of each process (default 1 GiB)
	CPU     time.Duration // CPU time of each process over its life (default 5 minutes)
	// Timeout bounds each operation (start and handshake, listing, a call)
	// whose context has no deadline (default 30s).
	Timeout time.Duration
}

func (s Sandbox) withDefaults() Sandbox {
	if s.Bwrap == "" {
		s.Bwrap = "bwrap"
	}
	if s.Prlimit == "" {
		s.Prlimit = "/usr/bin/prlimit"
	}
	if s.Memory <= 0 {
		s.Memory = 1 << 30
	}
	if s.CPU <= 0 {
		s.CPU = 5 * time.Minute
	}
	if s.Timeout <= 0 {
		s.Timeout = 30 * time.Second
	}
	return s
}

// StdioConfig is a stdio server: an absolute command under /usr, its
// arguments and its whole environment.
type StdioConfig struct {
	Command string
	Args    []string
	Env     map[string]string
	Sandbox Sandbox
}

// commandLine is the sandbox's command line: a read-only /usr and nothing
// else of the file system, new namespaces of every kind (so no network but
// a loopback of its own), an unprivileged user, a session of its own, an
// end with this process; inside it, prlimit sets the limits and runs the
// server. The environment is not on the command line, where other users
// of the machine could read it: it is the process's own.
func (s Sandbox) commandLine(bwrap string, c StdioConfig) []string {
	args := []string{bwrap, "--ro-bind", "/usr", "/usr", "--symlink", "usr/lib", "/lib", "--symlink", "usr/lib64", "/lib64",
		"--symlink", "usr/bin", "/bin", "--proc", "/proc", "--dev", "/dev", "--unshare-all", "--die-with-parent",
		"--new-session", "--uid", "65534", "--gid", "65534", "--chdir", "/", "--",
		s.Prlimit, "--as=" + strconv.FormatInt(s.Memory, 10), "--cpu=" + strconv.Itoa(int(s.CPU.Seconds())), "--core=0", "--",
		c.Command}
	return append(args, c.Args...)
}

// ConnectStdio starts a stdio server in its sandbox and completes the MCP
// handshake. The server's process lives until Close, or until it ends by
// itself (Alive then reports false). Errors are those of Connect, with
// what the server printed on stderr last; ErrNoSandbox when bwrap is
// missing.
func ConnectStdio(ctx context.Context, c StdioConfig) (*Client, error) {
	sb := c.Sandbox.withDefaults()
	bwrap, err := exec.LookPath(sb.Bwrap)
	if err != nil {
		return nil, ErrNoSandbox
	}
	line := sb.commandLine(bwrap, c)
	cmd := exec.Command(line[0], line[1:]...)
	cmd.Env = make([]string, 0, len(c.Env))
	for k, v := range c.Env {
		cmd.Env = append(cmd.Env, k+"="+v)
	}
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	stderr := &tail{max: 2048}
	cmd.Stderr = stderr
	shown := "stdio:" + c.Command
	ctx, cancel := withTimeout(ctx, sb.Timeout)
	defer cancel()
	client := sdk.NewClient(&sdk.Implementation{Name: "pergola", Version: "1.0"}, nil)
	session, err := client.Connect(ctx, &sdk.CommandTransport{Command: cmd, TerminateDuration: time.Second}, nil)
	if err != nil {
		if cmd.Process != nil {
			_ = syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
			_ = cmd.Wait()
		}
		return nil, &Error{Op: "start", URL: shown, Kind: ErrUnreachable, Err: withStderr(err, stderr)}
	}
	done := make(chan struct{})
	go func() { _ = session.Wait(); close(done) }()
	return &Client{url: shown, session: session, opTimeout: sb.Timeout, cancel: func() {}, done: done, stderr: stderr}, nil
}

// Alive reports whether the server's process still runs; a server
// reached over HTTP is always taken to.
func (c *Client) Alive() bool {
	if c.done == nil {
		return true
	}
	select {
	case <-c.done:
		return false
	default:
		return true
	}
}

func withStderr(err error, t *tail) error {
	if t == nil {
		return err
	}
	if s := t.String(); s != "" {
		return fmt.Errorf("%w (the server printed: %s)", err, s)
	}
	return err
}

// tail keeps the last bytes a process printed.
type tail struct {
	mu  sync.Mutex
	max int
	b   []byte
}

func (t *tail) Write(p []byte) (int, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.b = append(t.b, p...)
	if over := len(t.b) - t.max; over > 0 {
		t.b = append(t.b[:0], t.b[over:]...)
	}
	return len(p), nil
}

func (t *tail) String() string {
	t.mu.Lock()
	defer t.mu.Unlock()
	return strings.TrimSpace(strings.ToValidUTF8(string(t.b), "?"))
}
