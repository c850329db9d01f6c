// Package pyrun runs the Python of workflow code nodes: the host's python3
// inside a bubblewrap sandbox (no network, no file system but the
// read-only /usr it needs, no environment, a user of no rights in a
// namespace of its own), with limits the kernel enforces: address space,
// CPU time, no new processes, no file writes, no reaching another
// process, a wall-clock timeout that kills the run, a bound on what it
// prints. Each run gets a fresh process that serves it alone, so nothing
// leaks from one run to the next: past a workspace's first run, a child
// forked from that workspace's fork server (zygote.go), an interpreter
// that never runs code itself; otherwise an interpreter taken warm from a
// pool that refills in the background (pool.go).
package pyrun

import (
	"context"
	_ "embed"
	"errors"
	"fmt"
	"log/slog"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"time"
)

//go:embed driver.py
var driver string

// Limits bound one run.
type Limits struct {
	Timeout time.Duration // wall time (default 10s)
	Memory  int64         // bytes of address space (default 512 MiB)
	Output  int64         // bytes of answer and printed text (default 1 MiB)
	// Warm is how many interpreters wait, started, at least (default 2);
	// they are also the reserve that workspaces holding their whole
	// share cannot take.
	Warm int
	// WarmMax is how many wait at most when demand is high (default
	// Parallel, at most 64; at least Warm): as many as runs took in the
	// last second.
	WarmMax int
	// WarmIdle is how long one above demand may wait before it is ended
	// (default 30s).
	WarmIdle time.Duration
	// Starting is how many the pool starts at once (default GOMAXPROCS,
	// at least 2): each start is a burst of CPU.
	Starting int
	// Parallel is how many sandboxes run at once (default GOMAXPROCS);
	// the other runs wait their turn, at most their time limit.
	Parallel int
	// PerTenant is how many of them one workspace may run at once, as its
	// fair share allows (default Parallel): a workspace running that many
	// cannot take the pool's reserve.
	PerTenant int
	// Zygotes is how many workspaces' fork servers may run at once
	// (default 16; -1: none, every run takes a worker of the pool). Past
	// the first run of a workspace, its runs fork from its server
	// (zygote.go) instead of each taking a started sandbox.
	Zygotes int
	// DemoteAfter is how long a run may go before its sandbox (every
	// process of it) is reniced to procnice.Demoted, so that runs that
	// wake up, and interpreters starting, go first (0: never).
	DemoteAfter time.Duration
}

func (l Limits) withDefaults() Limits {
	if l.Timeout <= 0 {
		l.Timeout = 10 * time.Second
	}
	if l.Memory <= 0 {
		l.Memory = 512 << 20
	}
	if l.Output <= 0 {
		l.Output = 1 << 20
	}
	if l.Warm <= 0 {
		l.Warm = 2
	}
	if l.Parallel <= 0 {
		l.Parallel = runtime.GOMAXPROCS(0)
	}
	if l.WarmMax <= 0 {
		l.WarmMax = min(l.Parallel, 64) // each waiting interpreter holds some 10 MB
	}
	l.WarmMax = max(l.WarmMax, l.Warm)
	if l.WarmIdle <= 0 {
		l.WarmIdle = 30 * time.Second
	}
	if l.Starting <= 0 {
		l.Starting = max(runtime.GOMAXPROCS(0), 2)
	}
	if l.Zygotes == 0 {
		l.Zygotes = 16 // each holds some 10 MB, which its children share until they write
	}
	if l.PerTenant <= 0 || l.PerTenant > l.Parallel {
		l.PerTenant = l.Parallel
	}
	return l
}

// Config names the programs: python3 (default /usr/bin/python3: the
// sandbox holds /usr only) and bwrap (default: found in PATH).
type Config struct {
	Python, Bwrap string
	Limits        Limits
	Log           *slog.Logger // nil: slog.Default()
	// Tenant names the workspace a run's context belongs to, for the
	// pool's reserve (nil: every run is of one workspace).
	Tenant func(context.Context) int64
}

// Errors of a run.
var (
	ErrTimeout     = errors.New("the Python code ran out of time")
	ErrOutput      = errors.New("the Python code printed or returned too much")
	ErrUnavailable = errors.New("Python code nodes need python3 and bubblewrap (bwrap) on the server: install them (Debian: apt-get install python3 bubblewrap) or set PERGOLA_PYTHON and PERGOLA_BWRAP")
)

// CodeError is an exception of the code, with the line it names (0 when
// unknown).
type CodeError struct {
	Message string
	Line    int
}

func (e *CodeError) Error() string {
	if e.Line > 0 {
		return fmt.Sprintf("line %d: %s", e.Line, e.Message)
	}
	return e.Message
}

// Runner runs Python code. It is safe for concurrent use.
type Runner struct {
	python, bwrap string
	lim           Limits
	pool          *pool
	zygotes       *zygotes
	checked       *checks
	log           *slog.Logger
	tenant        func(context.Context) int64
	noAudit       bool          // tests: the kernel's limits alone, without the Python audit hook
	onRun         func(pid int) // tests: told the process id of each sandbox given a job
}

// New returns a runner, or ErrUnavailable when python3 or bwrap cannot be
// found. A machine that cannot start the sandbox fails each run saying so.
func New(cfg Config) (*Runner, error) {
	r := &Runner{lim: cfg.Limits.withDefaults(), log: cfg.Log, tenant: cfg.Tenant}
	if r.log == nil {
		r.log = slog.Default()
	}
	if r.tenant == nil {
		r.tenant = func(context.Context) int64 { return 0 }
	}
	var err error
	if r.python, err = look(cfg.Python, "/usr/bin/python3"); err != nil {
		return nil, ErrUnavailable
	}
	if r.bwrap, err = look(cfg.Bwrap, "bwrap"); err != nil {
		return nil, ErrUnavailable
	}
	if real, err := filepath.EvalSymlinks(r.python); err == nil {
		r.python = real // /bin/python3 is /usr/bin/python3.11 where /bin links to /usr/bin
	}
	if !strings.HasPrefix(r.python, "/usr/") {
		return nil, fmt.Errorf("%w (%s is not under /usr, the only tree the sandbox mounts)", ErrUnavailable, r.python)
	}
	if filterHex() == "" {
		return nil, fmt.Errorf("%w (no seccomp filter for %s)", ErrUnavailable, runtime.GOARCH)
	}
	r.pool = newPool(r.lim)
	r.zygotes = &zygotes{max: r.lim.Zygotes, idle: r.lim.WarmIdle, m: map[int64]*zygote{}}
	r.checked = &checks{max: 1024, m: map[[32]byte]error{}}
	go r.reap()
	return r, nil // the first run starts the first sandboxes: the server's start-up does not wait for them
}

func look(configured, name string) (string, error) {
	if configured != "" {
		return exec.LookPath(configured)
	}
	return exec.LookPath(name)
}

// args is the sandbox's command line. Python is the sandbox's pid 1 (no
// bwrap process inside: one would be dumpable, and code could write its
// memory through /proc to run outside the seccomp filter).
func (r *Runner) args() []string {
	return []string{r.bwrap, "--ro-bind", "/usr", "/usr", "--symlink", "usr/lib", "/lib", "--symlink", "usr/lib64", "/lib64",
		"--symlink", "usr/bin", "/bin", "--proc", "/proc", "--dev", "/dev",
		"--remount-ro", "/dev", "--remount-ro", "/", "--unshare-all", "--as-pid-1", "--die-with-parent",
		"--new-session", "--clearenv", "--uid", "65534", "--gid", "65534", "--chdir", "/",
		r.python, "-I", "-S", "-B", "-c", driver,
		strconv.FormatInt(r.lim.Memory, 10), strconv.Itoa(int(r.lim.Timeout.Seconds()) + 1), filterHex(), r.hook()}
}

func (r *Runner) hook() string {
	if r.noAudit {
		return "none"
	}
	return "audit"
}
