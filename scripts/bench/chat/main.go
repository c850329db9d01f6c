// Command chat measures /v3/chat on a running Pergola as a user's client
// sees it, streamed and polled, without tools and with one tool round,
// and in the same run a bare eino ReAct agent on the same fake model, so
// the difference is what the platform adds. It can also hold thousands of
// streamed chats open at once (-burst) and take a CPU profile of the
// server per path (-profile). scripts/bench-chat.sh and
// scripts/bench-scale.sh start everything and call it.
//
//	go run ./scripts/bench/chat -base http://127.0.0.1:8888 -token pat_x -llm http://127.0.0.1:8999/v1
package main

import (
	"context"
	"flag"
	"fmt"
	"os"
	"strconv"
	"strings"
	"time"

	"github.com/pergola-ai/pergola/scripts/bench/internal/benchkit"
)

type options struct {
	base, token, llm, model, paths, label, pprof, profileDir, pids string
	rounds, warm, conc, burst, cpuPID                              int
	poll, duration, profileFor                                     time.Duration
	bare                                                           bool
}

func parseFlags() options {
	var o options
	flag.StringVar(&o.base, "base", "http://127.0.0.1:8888", "Pergola base URL")
	flag.StringVar(&o.token, "token", "", "personal access token of an administrator")
	flag.StringVar(&o.llm, "llm", "http://127.0.0.1:8999/v1", "the fake model's base URL, for the server and the bare agent")
	flag.StringVar(&o.model, "model", "fake", "the id the fake model gets on the server")
	flag.StringVar(&o.paths, "paths", "stream,polled,stream+tool,polled+tool", "paths to measure")
	flag.StringVar(&o.label, "label", "", "what the server runs on, for the title")
	flag.IntVar(&o.rounds, "n", 300, "measured turns per path and worker")
	flag.IntVar(&o.warm, "warm", 30, "warm-up turns per path and worker, not measured")
	flag.IntVar(&o.conc, "c", 1, "workers (users chatting at once)")
	flag.DurationVar(&o.poll, "poll", time.Millisecond, "pause between retrieves of a polled chat")
	flag.DurationVar(&o.duration, "duration", 0, "measure for this long instead of -n turns")
	flag.BoolVar(&o.bare, "bare", true, "run the bare eino agent beside each turn")
	flag.IntVar(&o.cpuPID, "pid", 0, "server process id: report its CPU time per turn (with -c 1)")
	flag.StringVar(&o.pprof, "pprof", "", "the server's pprof base URL, e.g. http://127.0.0.1:6060")
	flag.StringVar(&o.profileDir, "profile", "", "write a CPU profile of the server per path into this folder (needs -pprof)")
	flag.DurationVar(&o.profileFor, "profile-for", 10*time.Second, "how long each profile runs")
	flag.IntVar(&o.burst, "burst", 0, "instead: hold this many streamed chats open at once and report errors and memory")
	flag.StringVar(&o.pids, "pids", "", "comma-separated server process ids whose peak memory -burst reports")
	flag.Parse()
	return o
}

func main() {
	o := parseFlags()
	if err := run(o); err != nil {
		fmt.Fprintln(os.Stderr, "bench chat:", err)
		os.Exit(1)
	}
}

func run(o options) error {
	if o.token == "" {
		return fmt.Errorf("-token is required")
	}
	cl := benchkit.NewClient(o.base, o.token, max(o.conc, o.burst))
	plainBot, toolBot, err := setUp(cl, o.model, o.llm)
	if err != nil {
		return fmt.Errorf("setting up: %w", err)
	}
	if o.burst > 0 {
		return runBurst(cl, plainBot, o)
	}
	paths, err := pickPaths(o.paths)
	if err != nil {
		return err
	}
	workers, err := newWorkers(cl, plainBot, toolBot, o)
	if err != nil {
		return err
	}
	return measureAll(workers, paths, o)
}

// setUp registers the fake model and publishes two bots: one without
// tools, one with a variable, so it offers setKeywordMemory.
func setUp(cl *benchkit.Client, modelID, llmURL string) (plain, withTool string, err error) {
	if err = cl.AddFakeModel(modelID, llmURL); err != nil {
		return "", "", err
	}
	ws, err := cl.Workspace()
	if err != nil {
		return "", "", err
	}
	model := map[string]any{"model_id": modelID}
	if plain, err = cl.PublishBot(ws, map[string]any{"name": "bench plain", "prompt": botPrompt, "model": model}); err != nil {
		return "", "", err
	}
	withTool, err = cl.PublishBot(ws, map[string]any{"name": "bench tool", "prompt": botPrompt, "model": model,
		"variables": []map[string]any{{"keyword": "city", "default": "unknown"}}})
	return plain, withTool, err
}

func newWorkers(cl *benchkit.Client, plainBot, toolBot string, o options) ([]*worker, error) {
	bare, err := newBareAgents(context.Background(), o.llm)
	if err != nil {
		return nil, err
	}
	workers := make([]*worker, o.conc)
	for i := range workers {
		workers[i] = &worker{cl: cl, user: "bench-" + strconv.Itoa(i), plain: conv{bot: plainBot}, tool: conv{bot: toolBot},
			bare: bare, poll: o.poll}
	}
	return workers, nil
}

// measureAll warms up, measures, reports, then profiles when asked. Any
// failed turn makes it fail.
func measureAll(workers []*worker, paths []*path, o options) error {
	runPhase(workers, paths, plan{rounds: o.warm, bare: o.bare})
	pl := plan{rounds: o.rounds, record: true, bare: o.bare}
	if o.duration > 0 {
		pl.until = time.Now().Add(o.duration)
	}
	if o.conc == 1 {
		pl.cpuPID = o.cpuPID
	}
	wall := runPhase(workers, paths, pl)
	report(os.Stdout, paths, o, wall)
	if err := failures(paths); err != nil {
		return err
	}
	if o.profileDir != "" {
		return profilePaths(workers, paths, o)
	}
	return nil
}

func failures(paths []*path) error {
	var msgs []string
	for _, p := range paths {
		if p.errors > 0 {
			msgs = append(msgs, fmt.Sprintf("%s: %d failed turns, first: %s", p.name, p.errors, p.firstErr))
		}
	}
	if len(msgs) > 0 {
		return fmt.Errorf("%s", strings.Join(msgs, "\n"))
	}
	return nil
}

// profilePaths loads the server with one path at a time, Pergola only,
// while its pprof listener takes a CPU profile, written to
// <dir>/chat-<path>.pprof.
func profilePaths(workers []*worker, paths []*path, o options) error {
	if o.pprof == "" {
		return fmt.Errorf("-profile needs -pprof")
	}
	for _, p := range paths {
		file := fmt.Sprintf("%s/chat-%s.pprof", o.profileDir, strings.ReplaceAll(p.name, "+", "-"))
		err := benchkit.Profile(o.pprof, o.profileFor, file, func(stop <-chan struct{}) {
			runPhase(workers, []*path{p}, plan{stop: stop})
		})
		if err != nil {
			return err
		}
		fmt.Printf("profile of %s: %s\n", p.name, file)
	}
	return failures(paths)
}
