package main

import (
	"fmt"
	"strings"
	"sync"
	"time"

	"github.com/pergola-ai/pergola/scripts/bench/internal/benchkit"
)

const (
	botPrompt = "Be brief."
	plainText = "hello"
	plainWant = "echo: hello"
	toolText  = `#call setKeywordMemory {"data":[{"keyword":"city","value":"Oslo"}]}`
	toolWant  = "tool said: "
)

// worker is one simulated user: its own conversations with both bots.
type worker struct {
	cl          *benchkit.Client
	user        string
	plain, tool conv
	bare        *bareAgents
	poll        time.Duration
}

// path is one measured way of chatting, on Pergola and on the bare agent.
type path struct {
	name          string
	pergola, bare func(w *worker) (turn, error)
	stream        bool

	first, total, bareFirst, bareTotal benchkit.Sample
	mu                                 sync.Mutex
	cpu                                time.Duration
	cpuTurns, polls, errors            int
	firstErr                           string
}

// allPaths are the four ways: streamed or polled, without tools or with
// one tool round.
func allPaths() []*path {
	return []*path{
		{name: "stream", stream: true,
			pergola: func(w *worker) (turn, error) { return streamTurn(w.cl, &w.plain, w.user, plainText, plainWant) },
			bare:    func(w *worker) (turn, error) { return bareStream(w.bare.plain, plainText, plainWant) }},
		{name: "polled",
			pergola: func(w *worker) (turn, error) { return polledTurn(w.cl, &w.plain, w.user, plainText, plainWant, w.poll) },
			bare:    func(w *worker) (turn, error) { return bareGenerate(w.bare.plain, plainText, plainWant) }},
		{name: "stream+tool", stream: true,
			pergola: func(w *worker) (turn, error) { return streamTurn(w.cl, &w.tool, w.user, toolText, toolWant) },
			bare:    func(w *worker) (turn, error) { return bareStream(w.bare.tool, toolText, toolWant) }},
		{name: "polled+tool",
			pergola: func(w *worker) (turn, error) { return polledTurn(w.cl, &w.tool, w.user, toolText, toolWant, w.poll) },
			bare:    func(w *worker) (turn, error) { return bareGenerate(w.bare.tool, toolText, toolWant) }},
	}
}

// pickPaths returns the paths named in the comma-separated list.
func pickPaths(list string) ([]*path, error) {
	byName := map[string]*path{}
	var names []string
	for _, p := range allPaths() {
		byName[p.name] = p
		names = append(names, p.name)
	}
	var out []*path
	for _, n := range strings.Split(list, ",") {
		p, ok := byName[strings.TrimSpace(n)]
		if !ok {
			return nil, fmt.Errorf("-paths: unknown path %q, want some of %s", n, strings.Join(names, ","))
		}
		out = append(out, p)
	}
	return out, nil
}

func (p *path) fail(err error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.errors++
	if p.firstErr == "" {
		p.firstErr = err.Error()
	}
}

// addTurn counts a measured turn's polls and, when it was sampled, the
// server CPU it took.
func (p *path) addTurn(cpu time.Duration, sampled bool, polls int) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.polls += polls
	if sampled {
		p.cpu += cpu
		p.cpuTurns++
	}
}
