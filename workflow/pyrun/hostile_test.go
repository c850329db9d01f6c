package pyrun

import (
	"context"
	"os"
	"strings"
	"testing"
	"time"
)

// hostile is a script that tries to get out of the sandbox or exhaust the
// host, and what each layer answers: the kernel alone (bubblewrap,
// seccomp, rlimits) and with the Python audit hook in front of it.
type hostile struct {
	name, body      string
	kernel, audited string // "" for both: the same answer
	timeout         time.Duration
}

// others is the start of a main that returns the other processes of the
// sandbox whose file it could open (the format of its path follows).
const others = "    import os\n    def opens(p, path, mode='rb'):\n        try:\n            open(path % p, mode).close()\n            return True\n" +
	"        except OSError:\n            return False\n    pids = [p for p in os.listdir('/proc') if p.isdigit() and int(p) != os.getpid()]\n" +
	"    return {'reached': [p for p in pids if opens(p, "

var hostileScripts = []hostile{
	{name: "endless loop", body: "    while True:\n        pass", kernel: "ran out of time", timeout: 2 * time.Second},
	{name: "huge allocation", body: "    x = ' ' * (10 ** 10)\n    return {}", kernel: "MemoryError"},
	{name: "growing list", body: "    a = []\n    while True:\n        a.append(bytearray(1000000))", kernel: "MemoryError"},
	{name: "fork bomb", body: "    import os\n    while True:\n        os.fork()", kernel: "[Errno 1] Operation not permitted", audited: "cannot use os.fork"},
	{name: "read a host file", body: "    return {'x': open('/etc/passwd').read()}", kernel: "No such file or directory", audited: "cannot read /etc/passwd"},
	{name: "read /proc", body: "    return {'x': open('/proc/self/environ').read()}", kernel: "{'x':'PWD=/\\u0000'}", audited: "cannot read /proc/self/environ"},
	{name: "write a file", body: "    open('/usr/x', 'w').write('x')", kernel: "Read-only file system", audited: "cannot write /usr/x"},
	{name: "a socket", body: "    import socket\n    socket.create_connection(('1.1.1.1', 80), timeout=1)", kernel: "[Errno 1] Operation not permitted", audited: "cannot use socket."},
	{name: "os.system", body: "    import os\n    return {'rc': os.system('id')}", kernel: "'rc':32512", audited: "cannot use os.system"}, // 127: the shell did not start
	{name: "subprocess", body: "    import subprocess\n    subprocess.run(['id'])", kernel: "[Errno 1] Operation not permitted", audited: "cannot use subprocess.Popen"},
	{name: "ctypes", body: "    import ctypes\n    return {'rc': ctypes.CDLL(None).system(b'id')}", kernel: "'rc':32512", audited: "cannot use ctypes.dlopen"},
	{name: "exec", body: "    import os\n    os.execv('/usr/bin/id', ['id'])", kernel: "[Errno 1] Operation not permitted", audited: "cannot use os.exec"},
	{name: "endless printing", body: "    while True:\n        print('x' * 100000)", kernel: "ran out of time", timeout: 2 * time.Second},
	{name: "the environment", body: "    import os\n    return {'env': sorted(os.environ)}", kernel: "'env':['LC_CTYPE','PWD']"},
	// What a fork server's child could reach of its server (pid 1) and siblings: each other
	// process of the sandbox, as listed in /proc (for a worker there is none but itself).
	{name: "signal itself", body: "    import os\n    os.kill(os.getpid(), 9)", kernel: "[Errno 1] Operation not permitted"},
	{name: "signal pid 1", body: "    import os\n    os.kill(1, 9)", kernel: "[Errno 1] Operation not permitted"},
	{name: "signal the group", body: "    import os\n    os.kill(0, 9)", kernel: "[Errno 1] Operation not permitted"},
	{name: "limit pid 1", body: "    import resource\n    resource.prlimit(1, resource.RLIMIT_NOFILE, (0, 0))", kernel: "[Errno 1] Operation not permitted"},
	{name: "renice the group", body: "    import os\n    os.setpriority(os.PRIO_PGRP, 0, 19)", kernel: "[Errno 1] Operation not permitted"},
	{name: "other processes' memory", body: others + "'/proc/%s/mem', 'r+b')]}", kernel: "'reached':[]"},
	{name: "other processes' environment", body: others + "'/proc/%s/environ')]}", kernel: "'reached':[]"},
	{name: "other processes' descriptors", body: others + "'/proc/%s/fd/0')]}", kernel: "'reached':[]"},
	// The kernel signals a descriptor's owner, with a signal its opener picks, when it is ready:
	// owning a pipe of its own, a run could kill a sibling or interrupt the fork server.
	{name: "own a pipe as pid 1", body: "    import fcntl, os\n    r, w = os.pipe()\n    fcntl.fcntl(r, fcntl.F_SETOWN, 1)", kernel: "[Errno 1] Operation not permitted"},
	{name: "own a socket as pid 1", body: "    import fcntl, socket\n    a, b = socket.socketpair()\n    fcntl.ioctl(a.fileno(), 0x8901, (1).to_bytes(4, 'little'))",
		kernel: "[Errno 1] Operation not permitted"},
	// A fork server's sandbox outlives a run: nothing a run leaves in it may (files, IPC objects).
	{name: "a directory in the root", body: "    import os\n    os.mkdir('/x')", kernel: "Read-only file system"},
	{name: "a pipe in /dev/shm", body: "    import os\n    os.mkfifo('/dev/shm/x')", kernel: "Read-only file system"},
	{name: "calls no filter should pass", body: rawCalls, kernel: "'calls':[[-1,1],[-1,1],[-1,1]]", audited: "cannot use ctypes"},
	{name: "descriptors left open", body: "    import os\n    return {'open': [fd for fd in range(3, 64) if not os.fstat(fd) is None]}", kernel: "Bad file descriptor"},
}

// rawCalls makes, through ctypes, calls the filter refuses by number
// (io_uring_setup, shmget) and, on amd64, an x32 call, which a filter that
// does not refuse the x32 numbers would let through: each answers -1 and
// EPERM (an x32 call ENOSYS where x32 is off, without the filter).
const rawCalls = `    import ctypes, platform
    libc = ctypes.CDLL(None, use_errno=True)
    amd64 = platform.machine() == 'x86_64'
    def call(*a):
        return [libc.syscall(*a), ctypes.get_errno()]
    buf = ctypes.create_string_buffer(120)
    x32 = call(0x40000000 | 39) if amd64 else [-1, 1]
    return {'calls': [call(425, 8, buf), call(29 if amd64 else 194, 0, 4096, 0o1600), x32]}`

// TestHostileCodeIsContained: what a hostile script tries fails inside
// the sandbox, by the kernel's limits alone and with the audit hook, in a
// worker of the pool and in a child of a fork server (which lives on),
// and the host is untouched.
func TestHostileCodeIsContained(t *testing.T) {
	lim := Limits{Timeout: 20 * time.Second, Memory: 128 << 20, Output: 64 << 10, Parallel: 2}
	for _, layer := range []string{"kernel/worker", "audited/worker", "kernel/forked", "audited/forked"} {
		t.Run(layer, func(t *testing.T) {
			t.Parallel()
			r := newRunner(t, lim)
			r.noAudit = strings.HasPrefix(layer, "kernel")
			var z *zygote
			if strings.HasSuffix(layer, "forked") {
				z = waitZygote(t, r, 0)
				t.Cleanup(func() {
					if !z.alive() || r.zygotes.m[0] != z {
						t.Error("the fork server did not live through the hostile runs")
					}
				})
			} else {
				r.zygotes.max = -1
			}
			for _, h := range hostileScripts {
				want := h.kernel
				if strings.HasPrefix(layer, "audited") && h.audited != "" {
					want = h.audited
				}
				res, err := r.Run(context.Background(), "def main(args):\n"+h.body+"\n", nil, h.timeout)
				got := strings.ReplaceAll(fmtResult(res, err), "\"", "'")
				if !strings.Contains(got, want) {
					t.Errorf("%s: got %.300s, want %q", h.name, got, want)
				}
			}
		})
	}
	t.Cleanup(func() {
		if _, err := os.Stat("/usr/x"); err == nil {
			t.Error("a sandbox wrote /usr/x")
		}
	})
}

// TestPrintingIsBounded: a run that prints a lot still answers, with the
// first 8 KiB of what it printed and a count of the rest.
func TestPrintingIsBounded(t *testing.T) {
	r := newRunner(t, Limits{})
	res, err := r.Run(context.Background(), "def main(args):\n    for i in range(500):\n        print('x' * 100000)\n    return {'ok': 1}\n", nil, 0)
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Logs) > 8300 || !strings.HasPrefix(res.Logs, "xxxx") || !strings.Contains(res.Logs, "(49992308 more characters not kept)") {
		t.Fatalf("logs (%d bytes) end %q", len(res.Logs), res.Logs[max(0, len(res.Logs)-80):])
	}
}

// TestAnswerIsBounded: an answer larger than Limits.Output is refused.
func TestAnswerIsBounded(t *testing.T) {
	r := newRunner(t, Limits{Output: 64 << 10})
	_, err := r.Run(context.Background(), "def main(args):\n    return {'x': 'y' * 100000}\n", nil, 0)
	if err != ErrOutput {
		t.Fatalf("err = %v, want ErrOutput", err)
	}
}

// prober is a main that waits until it sees two other processes in its
// sandbox (its fork server and a sibling), then tries on each what could
// tamper with it or read it: signals (also through a descriptor it
// owns), limits, priority, its memory,
// environment and job's pipe. It returns the processes it tried and what
// succeeded.
const prober = `import fcntl, os, resource, time
def main(args):
    def others():
        return sorted(int(p) for p in os.listdir('/proc') if p.isdigit() and int(p) != os.getpid())
    t = time.monotonic()
    while len(others()) < 2 and time.monotonic() - t < 5:
        time.sleep(0.01)
    def own(p):  # the kernel signals a ready descriptor's owner: SIGKILL, or SIGINT to pid 1
        r, w = os.pipe()
        fcntl.fcntl(r, fcntl.F_SETOWN, p)
        fcntl.fcntl(r, 10, 2 if p == 1 else 9)  # F_SETSIG
        fcntl.fcntl(r, fcntl.F_SETFL, os.O_ASYNC)
        os.write(w, b'x')
    tries = {
        'kill': lambda p: os.kill(p, 9),
        'prlimit': lambda p: resource.prlimit(p, resource.RLIMIT_CPU, (1, 1)),
        'renice': lambda p: os.setpriority(os.PRIO_PROCESS, p, 19),
        'mem': lambda p: open('/proc/%d/mem' % p, 'r+b').close(),
        'environ': lambda p: open('/proc/%d/environ' % p, 'rb').read(),
        'job': lambda p: open('/proc/%d/fd/0' % p, 'rb').close(),
        'sigio': own,
    }
    reached = []
    for p in others():
        for what, f in tries.items():
            try:
                f(p)
                reached.append('%d %s' % (p, what))
            except OSError:
                pass
    return {'tried': others(), 'reached': reached}
`

// TestSiblingsCannotReachEachOther: a run forked from its workspace's
// server, with the kernel's limits alone, cannot signal, limit, renice or
// read the server or a sibling run; the sibling answers what it was given
// and the workspace's next run forks from the same server.
func TestSiblingsCannotReachEachOther(t *testing.T) {
	r, _ := newTenantRunner(t, Limits{Parallel: 4})
	r.noAudit = true
	z := waitZygote(t, r, 1)
	sibling := make(chan string, 1)
	go func() {
		res, err := r.Run(inWorkspace(1), "import time\ndef main(args):\n    time.sleep(1.5)\n    return {'secret': args.params['secret']}\n",
			map[string]any{"secret": "s3cr3t"}, 0)
		sibling <- fmtResult(res, err)
	}()
	res, err := r.Run(inWorkspace(1), prober, nil, 0)
	if err != nil {
		t.Fatal(err)
	}
	got, _ := res.Value.(map[string]any)
	if tried, _ := got["tried"].([]any); len(tried) < 2 || len(got["reached"].([]any)) != 0 {
		t.Fatalf("the prober tried %v and reached %v", got["tried"], got["reached"])
	}
	if s := <-sibling; s != `{"secret":"s3cr3t"} ` {
		t.Fatalf("the sibling answered %s", s)
	}
	if res, err := r.Run(inWorkspace(1), "def main(args):\n    return {'ok': 1}\n", nil, 0); fmtResult(res, err) != `{"ok":1} ` || !z.alive() || r.zygotes.m[1] != z {
		t.Fatalf("the next run: %s; the server alive %v", fmtResult(res, err), z.alive())
	}
}
