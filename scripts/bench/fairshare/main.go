// Command fairshare measures what hostile workspaces leave to another:
// three workspaces keep their share of the code workers busy with endless
// loops (more runs at once than their share, so the rest of their runs
// wait and are refused), while a fourth runs a trivial code node one run
// after another through /v1/workflow/run. It prints the fourth's p50/p99
// and failures without the hostile load and with it, for JavaScript and
// (when the server runs Python code nodes) Python. scripts/bench-fairshare.sh
// starts the server.
package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/pergola-ai/pergola/scripts/bench/internal/benchkit"
)

func main() {
	base := flag.String("base", "http://127.0.0.1:8888", "the server")
	token := flag.String("token", "pat_bench", "an administrator's token")
	n := flag.Int("n", 300, "trivial runs measured per phase")
	hostile := flag.Int("hostile", 3, "hostile workspaces")
	loops := flag.Int("loops", 8, "endless-loop runs each hostile workspace keeps going at once, per language")
	loopMS := flag.Int("loop-ms", 5000, "time limit of a hostile code node")
	settle := flag.Duration("settle", 1500*time.Millisecond, "wait after starting the hostile load before measuring")
	strict := flag.Bool("strict", false, "exit non-zero when a trivial run fails")
	flag.Parse()
	failed, err := run(benchkit.NewClient(*base, *token, 64), *n, *hostile, *loops, *loopMS, *settle)
	if err == nil && *strict && failed > 0 {
		err = fmt.Errorf("%d trivial runs failed", failed)
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "fairshare:", err)
		os.Exit(1)
	}
}

// language is one kind of code node: its endless loop and its trivial
// node.
type language struct {
	name, endless, trivial string
}

var languages = []language{
	{"javascript", `function main() { for (;;) {} }`, `function main({ params }) { return { v: params.n * 2 }; }`},
	{"python", "def main(args):\n    while True:\n        pass\n", "def main(args):\n    return {\"v\": args.params[\"n\"] * 2}\n"},
}

// run measures and prints the table; it returns how many measured
// trivial runs failed.
func run(c *benchkit.Client, n, hostile, loops, loopMS int, settle time.Duration) (int, error) {
	victim, err := c.Workspace()
	if err != nil {
		return 0, err
	}
	hostiles := make([]string, hostile)
	for i := range hostiles {
		if hostiles[i], err = newWorkspace(c, fmt.Sprintf("hostile %d", i+1)); err != nil {
			return 0, err
		}
	}
	var langs []language
	trivial, endless := map[string]string{}, map[string][]string{}
	for _, l := range languages {
		id, err := c.PublishWorkflow(victim, "trivial_"+l.name, codeWorkflow(l.name, l.trivial, 2000))
		if err != nil && l.name == "python" {
			fmt.Println("python: not measured (the server runs no Python code nodes: it lacks python3 or bwrap)")
			continue
		}
		if err != nil {
			return 0, err
		}
		trivial[l.name] = id
		for i, ws := range hostiles {
			id, err := c.PublishWorkflow(ws, fmt.Sprintf("endless_%s_%d", l.name, i), codeWorkflow(l.name, l.endless, loopMS))
			if err != nil {
				return 0, err
			}
			endless[l.name] = append(endless[l.name], id)
		}
		langs = append(langs, l)
	}
	t := &benchkit.Table{}
	t.Row("language", "phase", "runs", "p50", "p99", "max", "failed")
	total := 0
	for _, l := range langs {
		measure(c, trivial[l.name], 20) // warm the workers up
		alone, failed := measure(c, trivial[l.name], n)
		total += failed
		t.Row(l.name, "alone", fmt.Sprint(n), benchkit.Ms(alone.Pct(50)), benchkit.Ms(alone.Pct(99)), benchkit.Ms(alone.Pct(100)), fmt.Sprint(failed))
		stop, counts := flood(c, endless[l.name], loops)
		time.Sleep(settle)
		under, failed := measure(c, trivial[l.name], n)
		total += failed
		stop()
		t.Row(l.name, fmt.Sprintf("%d hostile", hostile), fmt.Sprint(n), benchkit.Ms(under.Pct(50)), benchkit.Ms(under.Pct(99)), benchkit.Ms(under.Pct(100)), fmt.Sprint(failed))
		fmt.Printf("%s: hostile runs that ended during the measure: %d timed out, %d refused for their share, %d other\n",
			l.name, counts[0].Load(), counts[1].Load(), counts[2].Load())
	}
	t.Print(os.Stdout)
	return total, nil
}

// measure runs workflow id n times one after another and returns the
// latencies of the runs that succeeded and how many failed.
func measure(c *benchkit.Client, id string, n int) (*benchkit.Sample, int) {
	s := &benchkit.Sample{}
	failed := 0
	for i := range n {
		start := time.Now() // the whole request, as the client sees it
		env, err := c.Call("POST", "/v1/workflow/run", map[string]any{"workflow_id": id, "parameters": map[string]any{"n": i}}, 200)
		var out string // the end node's variables as JSON text, as Coze answers
		if err == nil {
			err = env.Into(&out)
		}
		if err == nil && out != fmt.Sprintf(`{"v":%d}`, i*2) {
			err = fmt.Errorf("answered %s", out)
		}
		if err != nil {
			failed++
			if failed <= 3 {
				fmt.Fprintf(os.Stderr, "trivial run %d failed: %v\n", i, err)
			}
			continue
		}
		s.Add(time.Since(start))
	}
	return s, failed
}

// flood keeps loops runs of each endless workflow going until stop is
// called; counts are the runs that ended timed out, refused, otherwise.
func flood(c *benchkit.Client, ids []string, loops int) (stop func(), counts *[3]atomic.Int64) {
	ctx, cancel := context.WithCancel(context.Background())
	counts = &[3]atomic.Int64{}
	var wg sync.WaitGroup
	for _, id := range ids {
		for range loops {
			wg.Go(func() {
				for ctx.Err() == nil {
					body := call(ctx, c, id)
					if ctx.Err() != nil {
						return
					}
					switch {
					case strings.Contains(body, "time limit") || strings.Contains(body, "ran out of time"):
						counts[0].Add(1)
					case strings.Contains(body, "its share"):
						counts[1].Add(1)
					default:
						counts[2].Add(1)
					}
				}
			})
		}
	}
	return func() { cancel(); wg.Wait() }, counts
}

// call runs workflow id and returns the answer's body, whatever it is.
func call(ctx context.Context, c *benchkit.Client, id string) string {
	req, err := c.Request("POST", "/v1/workflow/run", map[string]any{"workflow_id": id, "parameters": map[string]any{"n": 1}})
	if err != nil {
		return err.Error()
	}
	resp, err := c.HTTP.Do(req.WithContext(ctx))
	if err != nil {
		return err.Error()
	}
	defer resp.Body.Close()
	var b strings.Builder
	_, _ = fmt.Fprint(&b, resp.Status)
	buf := make([]byte, 4096)
	k, _ := resp.Body.Read(buf)
	b.Write(buf[:k])
	return b.String()
}

func newWorkspace(c *benchkit.Client, name string) (string, error) {
	env, err := c.Call("POST", "/api/workspaces", map[string]any{"name": name}, 201)
	if err != nil {
		return "", err
	}
	var ws struct {
		ID string `json:"id"`
	}
	return ws.ID, env.Into(&ws)
}

// codeWorkflow is start, one code node of lang running code within
// timeoutMS, and end.
func codeWorkflow(lang, code string, timeoutMS int) json.RawMessage {
	def, _ := json.Marshal(map[string]any{
		"nodes": []any{
			map[string]any{"id": "start", "type": "start", "outputs": []any{map[string]any{"name": "n", "type": "integer"}}},
			map[string]any{"id": "code", "type": "code", "config": map[string]any{"language": lang, "code": code},
				"settings": map[string]any{"timeout_ms": timeoutMS},
				"inputs":   map[string]any{"n": map[string]any{"ref": map[string]any{"node": "start", "path": "n"}}},
				"outputs":  []any{map[string]any{"name": "v", "type": "integer"}}},
			map[string]any{"id": "end", "type": "end", "inputs": map[string]any{"v": map[string]any{"ref": map[string]any{"node": "code", "path": "v"}}}},
		},
		"edges": []any{map[string]any{"from": "start", "to": "code"}, map[string]any{"from": "code", "to": "end"}},
	})
	return def
}
