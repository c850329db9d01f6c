package pyrun

import (
	"context"
	"errors"
	"os"
	"strings"
	"sync"
	"testing"
	"time"
)

// newRunner returns a runner, skipping when python3 or bwrap are missing
// outside CI (in CI, scripts/services.sh installs them).
func newRunner(t testing.TB, lim Limits) *Runner {
	t.Helper()
	r, err := New(Config{Limits: lim})
	if errors.Is(err, ErrUnavailable) && os.Getenv("CI") == "" {
		t.Skip(err)
	}
	if err != nil {
		t.Fatal(err)
	}
	return r
}

func TestRunsCozeStyleCode(t *testing.T) {
	r := newRunner(t, Limits{})
	code := "import json, math\n\nasync def main(args: Args) -> Output:\n    params = args.params\n" +
		"    print('got', params['n'])\n    return {'root': math.sqrt(params['n']), 'echo': json.dumps(params['tags'])}\n"
	res, err := r.Run(context.Background(), code, map[string]any{"n": 16, "tags": []any{"a"}}, 0)
	if err != nil {
		t.Fatal(err)
	}
	m, _ := res.Value.(map[string]any)
	if m == nil || m["root"].(interface{ String() string }).String() != "4.0" || m["echo"] != `["a"]` || res.Logs != "got 16\n" {
		t.Fatalf("result %#v, logs %q", res.Value, res.Logs)
	}
}

func TestErrorsNameTheLine(t *testing.T) {
	r := newRunner(t, Limits{})
	var ce *CodeError
	err := r.Check(context.Background(), "def main(args):\n    return {\n")
	if !errors.As(err, &ce) || ce.Line != 2 || !strings.Contains(ce.Message, "SyntaxError") {
		t.Fatalf("syntax error = %v", err)
	}
	_, err = r.Run(context.Background(), "def main(args):\n    x = 1\n    return 1 / 0\n", nil, 0)
	if !errors.As(err, &ce) || ce.Line != 3 || !strings.Contains(ce.Message, "ZeroDivisionError") {
		t.Fatalf("exception = %v", err)
	}
}

// TestHostileCodeIsContained: what a hostile script tries fails inside the
// sandbox, and the host is untouched.
func TestHostileCodeIsContained(t *testing.T) {
	// Generous time for the cases that meet another limit first, so a
	// loaded machine does not turn them into timeouts; little for those
	// that can only time out.
	r := newRunner(t, Limits{Timeout: 30 * time.Second, Memory: 256 << 20, Output: 64 << 10})
	cases := []struct{ name, body, want string }{
		{"endless loop", "    while True:\n        pass", "ran out of time"},
		{"huge allocation", "    x = ' ' * (10 ** 10)\n    return {}", "MemoryError"},
		{"growing list", "    a = []\n    while True:\n        a.append(bytearray(32 << 20))", "MemoryError"},
		{"fork bomb", "    import os\n    while True:\n        os.fork()", "PermissionError"},
		{"read a host file", "    return {'x': open('/etc/passwd').read()}", "No such file or directory"},
		{"write a file", "    open('/usr/x', 'w').write('x')", "Read-only file system"},
		{"a socket", "    import socket\n    socket.create_connection(('1.1.1.1', 80), timeout=1)", "PermissionError"},
		{"os.system", "    import os\n    return {'rc': os.system('id')}", "'rc':32512"}, // exit 127: nothing ran
		{"subprocess", "    import subprocess\n    subprocess.run(['id'])", "PermissionError"},
		{"ctypes", "    import ctypes\n    return {'rc': ctypes.CDLL(None).system(b'id')}", "'rc':32512"},
		{"exec", "    import os\n    os.execv('/usr/bin/id', ['id'])", "PermissionError"},
		{"huge print", "    while True:\n        print('x' * 100000)", ""},
		{"the environment", "    import os\n    return {'env': sorted(os.environ)}", "'env':['LC_CTYPE','PWD']"},
	}
	var wg sync.WaitGroup
	for _, c := range cases {
		wg.Add(1)
		go func() {
			defer wg.Done()
			timeout := time.Duration(0) // the runner's 30s
			if c.want == "ran out of time" || c.name == "huge print" {
				timeout = 2 * time.Second
			}
			res, err := r.Run(context.Background(), "def main(args):\n"+c.body+"\n", nil, timeout)
			got := strings.ReplaceAll(strings.ReplaceAll(fmtResult(res, err), "\"", "'"), "\\n", " ")
			if c.want != "" && !strings.Contains(got, c.want) {
				t.Errorf("%s: got %s, want %q", c.name, got, c.want)
			}
			t.Logf("%s: %.160s", c.name, got)
		}()
	}
	wg.Wait()
	if _, err := os.Stat("/usr/x"); err == nil {
		t.Fatal("a sandbox wrote /usr/x")
	}
}
