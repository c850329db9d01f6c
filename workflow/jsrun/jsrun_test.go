package jsrun

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"
)

func TestRun(t *testing.T) {
	// Time enough that a loaded machine meets the other limits first; the
	// endless loop alone gets little.
	r := NewRunner(Limits{Timeout: 30 * time.Second, Memory: 16 << 20})
	cases := []struct {
		name, code string
		params     map[string]any
		want       string // the result as JSON-ish text, or the error
		err        error
	}{
		{name: "sync", code: `function main({ params }) { console.log("n is", params.n); return { double: params.n * 2 }; }`,
			params: map[string]any{"n": 21}, want: "map[double:42]"},
		{name: "async", code: `async function main({ params }) { const v = await Promise.resolve(params.s + "!"); return { v }; }`,
			params: map[string]any{"s": "hi"}, want: "map[v:hi!]"},
		{name: "undefined result", code: `function main() {}`, want: "<nil>"},
		{name: "exception", code: `function main() { null.x; }`, want: "TypeError: Cannot read property 'x' of undefined at main (code:1:24"},
		{name: "rejected", code: `async function main() { throw new RangeError("bad"); }`, want: "main's promise was rejected: RangeError: bad"},
		{name: "pending", code: `function main() { return new Promise(() => {}); }`, want: "main's promise never settled"},
		{name: "no main", code: `const x = 1;`, want: "defines no function main"},
		{name: "loop", code: `function main() { for (;;) {} }`, err: ErrTimeout},
		{name: "allocation", code: `function main() { const a = []; for (;;) a.push({ s: "x".repeat(64) + a.length }); }`, err: ErrMemory},
		{name: "big string", code: `function main() { return { n: "ab".repeat(5e7).length }; }`, want: "repeat would exceed"},
		{name: "big buffer", code: `function main() { return { n: new Float64Array(1e8).length }; }`, want: "new Float64Array would exceed"},
		{name: "sparse join", code: `function main() { return { n: new Array(1e9).join("x").length }; }`, want: "join would exceed"},
		{name: "shared join", code: `function main() { const s = "x".repeat(1e6); return { n: new Array(100).fill(s).join("").length }; }`, want: "join would exceed"},
		{name: "many concat", code: `function main() { const s = "x".repeat(1e6); return { n: s.concat(...new Array(50).fill(s)).length }; }`, want: "concat would exceed"},
		{name: "shared stringify", code: `function main() { const o = { s: "x".repeat(1e6) }; return { n: JSON.stringify(new Array(100).fill(o)).length }; }`, want: "JSON.stringify would exceed"},
		{name: "shared result", code: `function main() { const o = { s: "x".repeat(1e6) }; return { a: new Array(100).fill(o) }; }`, want: "JSON.stringify would exceed"},
		{name: "big fill", code: `function main() { return { n: new Array(1e8).fill(0).length }; }`, want: "fill would exceed"},
		{name: "big from", code: `function main() { return { n: Array.from({ length: 1e8 }).length }; }`, want: "Array.from would exceed"},
		{name: "big split", code: `function main() { return { n: "x".repeat(1e6).split("").length }; }`, want: "split would exceed"},
		{name: "guarded built-ins still work", code: `function main() {
  const j = JSON.stringify({ a: 1, b: [1, "x"] }, (k, v) => (k === "a" ? v + 1 : v));
  return { j, l: JSON.stringify({ a: 1, b: 2 }, ["b"]), s: "a".concat("b", 1), t: [1, "x", null].join("-"),
    f: new Array(3).fill(7), r: Array.from({ length: 2 }, (_, i) => i), p: "ab".split(""), q: "x".repeat(3) };
}`, want: `map[f:[7 7 7] j:{"a":2,"b":[1,"x"]} l:{"b":2} p:[a b] q:xxx r:[0 1] s:ab1 t:1-x-]`},
		{name: "garbage is not held", code: `function main() {
  let n = 0;
  for (let i = 0; i < 2e4; i++) { const o = { s: "y".repeat(100) + i, a: [i, i + 1] }; n += o.s.length; }
  return { n };
}`, want: "map[n:"},
		{name: "recursion", code: `function main() { const f = () => f(); f(); }`, want: "recursed too deeply"},
		{name: "isolation", code: `function main() { globalThis.leak = (globalThis.leak || 0) + 1; return { n: globalThis.leak }; }`, want: "map[n:1]"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			p, err := Compile(tc.code)
			if err != nil {
				t.Fatal(err)
			}
			timeout := time.Duration(0) // the runner's
			if tc.err == ErrTimeout {
				timeout = 2 * time.Second
			}
			res, err := r.Run(context.Background(), p, tc.params, timeout)
			switch {
			case tc.err != nil:
				if !errors.Is(err, tc.err) {
					t.Fatalf("error = %v, want %v", err, tc.err)
				}
			case err != nil:
				if !strings.Contains(err.Error(), tc.want) {
					t.Fatalf("error = %v, want %q", err, tc.want)
				}
			default:
				if got := fmtValue(res.Value); !strings.Contains(got, tc.want) {
					t.Fatalf("result = %s, want %s", got, tc.want)
				}
			}
		})
	}
}

func TestRunLogsAndCancel(t *testing.T) {
	r := NewRunner(Limits{MaxLogs: 20})
	p, _ := Compile(`function main() { for (let i = 0; i < 10; i++) console.log("line", i); return {}; }`)
	res, err := r.Run(context.Background(), p, nil, 0)
	if err != nil || !strings.HasPrefix(res.Logs, "line 0\nline 1") || len(res.Logs) > 24 {
		t.Fatalf("logs = %q, %v", res.Logs, err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 50*time.Millisecond)
	defer cancel()
	spin, _ := Compile(`function main() { for (;;) {} }`)
	if _, err := r.Run(ctx, spin, nil, time.Minute); !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("cancelled run: %v", err)
	}
	if _, err := Compile("function main( {"); err == nil || !strings.HasPrefix(err.Error(), "syntax error") {
		t.Fatalf("Compile = %v", err)
	}
}

func fmtValue(v any) string { return fmt.Sprint(v) }

func TestCompileTypeScript(t *testing.T) {
	src := "interface Args { params: { n: number } }\ntype Output = { twice: number }\n" +
		"async function main({ params }: Args): Promise<Output> {\n  const n: number = params.n as number\n  return { twice: n * 2 }\n}\n"
	p, err := CompileTypeScript(src)
	if err != nil {
		t.Fatal(err)
	}
	res, err := NewRunner(Limits{}).Run(context.Background(), p, map[string]any{"n": int64(21)}, 0)
	if err != nil {
		t.Fatal(err)
	}
	if m, _ := res.Value.(map[string]any); m == nil || fmt.Sprint(m["twice"]) != "42" {
		t.Fatalf("main returned %#v", res.Value)
	}
	if _, err := CompileTypeScript("function main(: Args) {}"); err == nil || !strings.Contains(err.Error(), "line 1:") {
		t.Fatalf("a syntax error = %v, want its line", err)
	}
}
