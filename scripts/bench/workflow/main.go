// Command workflow measures synchronous workflow runs on a running
// Pergola over HTTP (POST /v1/workflow/run): the rate of a 2-node
// workflow (Start → End echoing an input) beside n8n running the same
// (Webhook → Respond to Webhook) at the same concurrency for the same
// time, and the HTTP cost per node from chains of 2, 20 and 100 nodes
// beside the engine's own cost per node, measured in this process on the
// same definitions. scripts/bench-workflow-n8n.sh and
// scripts/bench-scale.sh start everything and call it.
package main

import (
	"flag"
	"fmt"
	"os"
	"strconv"
	"strings"
	"time"

	"github.com/pergola-ai/pergola/scripts/bench/internal/benchkit"
)

type options struct {
	base, token, n8n, sizes, label, pprof, profileDir string
	conc, rounds, seq, warm, cpuPID                   int
	duration, profileFor                              time.Duration
}

func parseFlags() options {
	var o options
	flag.StringVar(&o.base, "base", "http://127.0.0.1:8888", "Pergola base URL")
	flag.StringVar(&o.token, "token", "", "personal access token")
	flag.StringVar(&o.n8n, "n8n", "", "URL of the n8n webhook running the same 2-node workflow (empty: Pergola alone)")
	flag.StringVar(&o.label, "label", "", "what the server runs on, for the titles")
	flag.IntVar(&o.conc, "c", 8, "runs at once in the rate phase")
	flag.DurationVar(&o.duration, "duration", 10*time.Second, "rate phase: how long each system is loaded (split over -rounds)")
	flag.IntVar(&o.rounds, "rounds", 2, "rate phase: alternations between the systems")
	flag.StringVar(&o.sizes, "nodes", "2,20,100", "chain sizes for the cost per node (empty: skip)")
	flag.IntVar(&o.seq, "n", 300, "cost per node: sequential runs per chain size")
	flag.IntVar(&o.warm, "warm", 30, "warm-up runs per chain size and system")
	flag.IntVar(&o.cpuPID, "pid", 0, "server process id: report its CPU time per run")
	flag.StringVar(&o.pprof, "pprof", "", "the server's pprof base URL")
	flag.StringVar(&o.profileDir, "profile", "", "write CPU profiles of the server (2 and 100 nodes) into this folder")
	flag.DurationVar(&o.profileFor, "profile-for", 10*time.Second, "how long each profile runs")
	flag.Parse()
	return o
}

func main() {
	if err := run(parseFlags()); err != nil {
		fmt.Fprintln(os.Stderr, "bench workflow:", err)
		os.Exit(1)
	}
}

func run(o options) error {
	if o.token == "" {
		return fmt.Errorf("-token is required")
	}
	sizes, err := parseSizes(o.sizes)
	if err != nil {
		return err
	}
	cl := benchkit.NewClient(o.base, o.token, o.conc)
	ids, err := publishChains(cl, append([]int{2}, sizes...))
	if err != nil {
		return fmt.Errorf("setting up: %w", err)
	}
	targets := []target{{name: "Pergola", run: pergolaRun(cl, ids[2])}}
	if o.n8n != "" {
		n8nClient := benchkit.NewClient("", "", o.conc).HTTP
		targets = append(targets, target{name: "n8n", run: n8nRun(n8nClient, o.n8n)})
	}
	if err := ratePhase(targets, o); err != nil {
		return err
	}
	if len(sizes) > 0 {
		if err := perNodePhase(cl, ids, sizes, o); err != nil {
			return err
		}
	}
	if o.profileDir != "" {
		return profileChains(cl, ids, o)
	}
	return nil
}

func parseSizes(list string) ([]int, error) {
	var sizes []int
	for _, s := range strings.Split(list, ",") {
		if s = strings.TrimSpace(s); s == "" {
			continue
		}
		n, err := strconv.Atoi(s)
		if err != nil || n < 2 || n > 200 {
			return nil, fmt.Errorf("-nodes: %q must be a number of nodes from 2 to 200", s)
		}
		sizes = append(sizes, n)
	}
	return sizes, nil
}

// publishChains publishes one chain workflow per size.
func publishChains(cl *benchkit.Client, sizes []int) (map[int]string, error) {
	ws, err := cl.Workspace()
	if err != nil {
		return nil, err
	}
	ids := map[int]string{}
	for _, n := range sizes {
		if ids[n] != "" {
			continue
		}
		if ids[n], err = cl.PublishWorkflow(ws, fmt.Sprintf("bench_chain_%d", n), chain(n)); err != nil {
			return nil, err
		}
	}
	return ids, nil
}

// profileChains loads the 2- and the largest node chain in turn while the
// server's pprof listener takes a CPU profile of each.
func profileChains(cl *benchkit.Client, ids map[int]string, o options) error {
	if o.pprof == "" {
		return fmt.Errorf("-profile needs -pprof")
	}
	big := 2
	for n := range ids {
		big = max(big, n)
	}
	for _, n := range []int{2, big} {
		file := fmt.Sprintf("%s/workflow-%dnodes.pprof", o.profileDir, n)
		var errs counter
		err := benchkit.Profile(o.pprof, o.profileFor, file, func(stop <-chan struct{}) {
			load(target{name: "Pergola", run: pergolaRun(cl, ids[n])}, o.conc, stop, nil, &errs)
		})
		if err != nil {
			return err
		}
		if errs.n > 0 {
			return fmt.Errorf("%d failed runs while profiling %d nodes, first: %s", errs.n, n, errs.first)
		}
		fmt.Printf("profile of %d nodes: %s\n", n, file)
		if n == big {
			break
		}
	}
	return nil
}
