package pyrun

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
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

// TestChecksAreRemembered: checking the same code again starts no sandbox
// (here none could start) and gives the same answer.
func TestChecksAreRemembered(t *testing.T) {
	r := newRunner(t, Limits{})
	bad := "def main(args):\n    return {\n"
	first := r.Check(context.Background(), bad)
	if err := r.Check(context.Background(), "def main(args):\n    return {}\n"); err != nil {
		t.Fatal(err)
	}
	r.Close()
	r.bwrap = "/nonexistent/bwrap"
	if again := r.Check(context.Background(), bad); again == nil || again.Error() != first.Error() {
		t.Fatalf("the second check: %v, the first: %v", again, first)
	}
	if err := r.Check(context.Background(), "def main(args):\n    return {}\n"); err != nil {
		t.Fatalf("the remembered good code: %v", err)
	}
	if err := r.Check(context.Background(), "def main(args):\n    return 1\n"); err == nil || !strings.Contains(err.Error(), "start a Python sandbox") {
		t.Fatalf("new code without a sandbox: %v", err)
	}
}

// TestValuesJSONCannotHold: NaN or a cycle in the answer fails the run
// saying so.
func TestValuesJSONCannotHold(t *testing.T) {
	r := newRunner(t, Limits{})
	for _, body := range []string{"return {'x': float('nan')}", "a = []\n    a.append(a)\n    return {'a': a}"} {
		_, err := r.Run(context.Background(), "def main(args):\n    "+body+"\n", nil, 0)
		if err == nil || !strings.Contains(err.Error(), "main returned a value JSON cannot hold") {
			t.Errorf("%s: %v", body, err)
		}
	}
}

// TestUnavailable: a missing program, or a python3 outside /usr (which the
// sandbox could not see), makes no runner and says how to enable Python.
func TestUnavailable(t *testing.T) {
	outside := filepath.Join(t.TempDir(), "python3")
	if err := os.WriteFile(outside, []byte("#!/bin/sh\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	for _, cfg := range []Config{{Python: "/nonexistent/python3"}, {Bwrap: "/nonexistent/bwrap"}, {Python: outside}} {
		if _, err := New(cfg); !errors.Is(err, ErrUnavailable) || !strings.Contains(err.Error(), "apt-get install python3 bubblewrap") {
			t.Errorf("%+v: %v", cfg, err)
		}
	}
}

// TestAsyncMainWithoutAwait: an async main whose code never awaits runs
// without asyncio; one that awaits gets its event loop; one that hides
// its await from the source fails saying what to write.
func TestAsyncMainWithoutAwait(t *testing.T) {
	r := newRunner(t, Limits{})
	cases := map[string]string{
		"import sys\nasync def main(args):\n    return {'asyncio': 'asyncio' in sys.modules}\n":                `{"asyncio":false} `,
		"import asyncio\nasync def main(args):\n    await asyncio.sleep(0.01)\n    return {'slept': True}\n":   `{"slept":true} `,
		"async def main(args):\n    raise ValueError('no')\n":                                                  "error: line 2: ValueError: no",
		"import asyncio\nexec('async def main(args):\\n    aw' + 'ait asyncio.sleep(0)\\n    return {}\\n')\n": "write the await in main's code",
	}
	for code, want := range cases {
		res, err := r.Run(context.Background(), code, nil, 0)
		if got := fmtResult(res, err); !strings.Contains(got, want) {
			t.Errorf("%q: got %s, want %s", code, got, want)
		}
	}
}
