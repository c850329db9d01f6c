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
}

// TestHostileCodeIsContained: what a hostile script tries fails inside
// the sandbox, by the kernel's limits alone and with the audit hook, and
// the host is untouched.
func TestHostileCodeIsContained(t *testing.T) {
	lim := Limits{Timeout: 20 * time.Second, Memory: 128 << 20, Output: 64 << 10, Parallel: 2}
	for _, layer := range []string{"kernel", "audited"} {
		t.Run(layer, func(t *testing.T) {
			t.Parallel()
			r := newRunner(t, lim)
			r.noAudit = layer == "kernel"
			for _, h := range hostileScripts {
				want := h.kernel
				if layer == "audited" && h.audited != "" {
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
