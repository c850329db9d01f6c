// Command loadwf measures what a synchronous workflow run costs over HTTP
// against a running Pergola, beside what the same workflow costs in the
// engine in process, for chains of 2, 20 and 100 nodes. For each size it
// creates and publishes a workflow (start → text nodes → end), runs it one
// request at a time (latency: p50, p99) and from -c clients at once
// (throughput), and reports the HTTP cost per node: the growth of the p50
// from the smallest to each larger workflow, divided by the nodes added,
// next to the engine's. scripts/bench-workflow.sh starts everything.
//
//	go run ./scripts/loadwf -base http://127.0.0.1:8888 -token pat_x -sizes 2,20,100
package main

import (
	"flag"
	"fmt"
	"net"
	"net/http"
	"os"
	"strconv"
	"strings"
	"time"
)

// config is what the flags set.
type config struct {
	base, token string
	sizes       []int
	seq, conc   int
	clients     int
	engineRuns  int
}

// measure is what was measured for one workflow size.
type measure struct {
	nodes    int
	p50, p99 time.Duration
	rate     float64
	engine   time.Duration // one run in process
}

func main() {
	cfg := parseFlags()
	client := &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: cfg.clients + 4,
		DialContext: (&net.Dialer{Timeout: 10 * time.Second}).DialContext}, Timeout: 60 * time.Second}
	api := &apiClient{base: cfg.base, token: cfg.token, http: client}
	ws, err := api.workspace()
	if err != nil {
		fail(err)
	}
	var all []measure
	for _, n := range cfg.sizes {
		m, err := measureSize(api, ws, n, cfg)
		if err != nil {
			fail(fmt.Errorf("%d nodes: %w", n, err))
		}
		all = append(all, m)
	}
	report(all)
}

func parseFlags() config {
	var cfg config
	sizes := flag.String("sizes", "2,20,100", "workflow sizes in nodes, start and end included (at least 2)")
	flag.StringVar(&cfg.base, "base", "http://127.0.0.1:8888", "Pergola base URL")
	flag.StringVar(&cfg.token, "token", "", "personal access token")
	flag.IntVar(&cfg.seq, "n", 2000, "runs one at a time per size (latency)")
	flag.IntVar(&cfg.conc, "m", 4000, "runs from -c clients per size (throughput)")
	flag.IntVar(&cfg.clients, "c", 16, "concurrent clients for the throughput pass")
	flag.IntVar(&cfg.engineRuns, "engine-runs", 20000, "in-process engine runs per size")
	flag.Parse()
	for _, s := range strings.Split(*sizes, ",") {
		n, err := strconv.Atoi(strings.TrimSpace(s))
		if err != nil || n < 2 {
			fail(fmt.Errorf("-sizes: %q is not a size of at least 2", s))
		}
		cfg.sizes = append(cfg.sizes, n)
	}
	return cfg
}

// measureSize creates the workflow of n nodes and measures it in process
// and over HTTP.
func measureSize(api *apiClient, ws string, n int, cfg config) (measure, error) {
	def := chain(n)
	m := measure{nodes: n}
	var err error
	if m.engine, err = engineCost(def, cfg.engineRuns); err != nil {
		return m, fmt.Errorf("in process: %w", err)
	}
	id, err := api.publish(ws, fmt.Sprintf("load_%d_%d", n, time.Now().UnixNano()), def)
	if err != nil {
		return m, err
	}
	for range 50 { // warm the server's caches and connections
		if err := api.run(id); err != nil {
			return m, err
		}
	}
	if m.p50, m.p99, err = latencies(api, id, cfg.seq); err != nil {
		return m, err
	}
	m.rate, err = throughput(api, id, cfg.conc, cfg.clients)
	return m, err
}

func report(all []measure) {
	fmt.Printf("%-6s %-10s %-10s %-10s %-12s %-16s %-16s %s\n", "nodes", "http p50", "http p99", "req/s", "engine/run",
		"http µs/node", "engine µs/node", "ratio")
	first := all[0]
	for _, m := range all {
		line := fmt.Sprintf("%-6d %-10s %-10s %-10.0f %-12s", m.nodes, m.p50, m.p99, m.rate, m.engine)
		if m.nodes > first.nodes {
			added := float64(m.nodes - first.nodes)
			httpPer := float64(m.p50-first.p50) / added / 1e3
			engPer := float64(m.engine-first.engine) / added / 1e3
			line += fmt.Sprintf(" %-16.2f %-16.2f %.1fx", httpPer, engPer, httpPer/engPer)
		}
		fmt.Println(line)
	}
}

func fail(err error) {
	fmt.Fprintln(os.Stderr, "loadwf:", err)
	os.Exit(1)
}
