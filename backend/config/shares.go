package config

import (
	"fmt"
	"runtime"
	"strconv"
	"strings"
	"time"
)

// Shares bound what one workspace takes of the pools every workspace
// shares: code-node workers (PERGOLA_CODE_PARALLEL), model calls
// (ModelParallel), channel workers (PERGOLA_CHANNEL_WORKERS) and
// knowledge indexing workers (PERGOLA_KNOWLEDGE_WORKERS).
type Shares struct {
	// Share is the fraction of each pool one workspace may hold at once,
	// rounded up, at least one slot; 1 turns the bound per workspace off.
	Share float64 `yaml:"fair_share"`
	// ModelParallel bounds the model calls of this process running at
	// once, every workspace together (each its Share of them); 0: no
	// bound.
	ModelParallel int `yaml:"model_parallel"`
	// ModelWait is how long a model call waits for a turn before it
	// fails (429).
	ModelWait time.Duration `yaml:"model_wait"`
	// CodeNice is the nice value code worker processes run at (0 to 19;
	// 0: the server's). On a machine that runs Pergola alone, a positive
	// value lets the server's own work, its database and code nodes that
	// wake up go before code that loops; beside other busy programs it
	// slows every code node.
	CodeNice int `yaml:"code_nice"`
	// CodeDemoteAfter is how long a code node (JavaScript or Python) may
	// run before its process is reniced to 19, the lowest priority, so
	// that code that loops yields the CPU to code nodes that wake up
	// (and to Python interpreters starting); a JavaScript worker so
	// demoted is replaced after its run. 0: never.
	CodeDemoteAfter time.Duration `yaml:"code_demote_after"`
}

// DefaultShares returns the default shares: a quarter of each pool.
func DefaultShares() Shares {
	return Shares{Share: 0.25, ModelWait: 10 * time.Second, CodeDemoteAfter: 200 * time.Millisecond}
}

// CodeWorkers is how many code nodes (JavaScript, and Python apart) run
// at once in this process: PERGOLA_CODE_PARALLEL, or by default four per
// CPU and at least eight, so that three workspaces holding their share
// (a quarter each) still leave slots to the others.
func (c Config) CodeWorkers() int {
	if c.CodeParallel > 0 {
		return c.CodeParallel
	}
	return max(8, 4*runtime.GOMAXPROCS(0))
}

func applySharesEnv(s *Shares, env Lookup) error {
	if v, ok := env("PERGOLA_FAIR_SHARE"); ok {
		f, err := strconv.ParseFloat(strings.TrimSpace(v), 64)
		if err != nil {
			return fmt.Errorf("PERGOLA_FAIR_SHARE: must be a fraction such as 0.25, got %q", v)
		}
		s.Share = f
	}
	for key, dst := range map[string]*int{"PERGOLA_MODEL_PARALLEL": &s.ModelParallel, "PERGOLA_CODE_NICE": &s.CodeNice} {
		if v, ok := env(key); ok {
			n, err := strconv.Atoi(strings.TrimSpace(v))
			if err != nil {
				return fmt.Errorf("%s: must be an integer, got %q", key, v)
			}
			*dst = n
		}
	}
	for key, d := range map[string]struct {
		dst     *time.Duration
		example string
	}{"PERGOLA_MODEL_WAIT": {&s.ModelWait, "10s"}, "PERGOLA_CODE_DEMOTE_AFTER": {&s.CodeDemoteAfter, "200ms (0 turns it off)"}} {
		if v, ok := env(key); ok {
			n, err := time.ParseDuration(strings.TrimSpace(v))
			if err != nil {
				return fmt.Errorf("%s: must be a duration such as %s, got %q", key, d.example, v)
			}
			*d.dst = n
		}
	}
	return nil
}

func (s Shares) validate() error {
	switch {
	case !(s.Share > 0 && s.Share <= 1):
		return fmt.Errorf("PERGOLA_FAIR_SHARE: must be a fraction above 0 and at most 1 (the share of each pool one workspace may hold), got %g", s.Share)
	case s.ModelParallel < 0:
		return fmt.Errorf("PERGOLA_MODEL_PARALLEL: must be 0 (no bound) or a positive number of model calls running at once, got %d", s.ModelParallel)
	case s.CodeNice < 0 || s.CodeNice > 19:
		return fmt.Errorf("PERGOLA_CODE_NICE: must be a nice value from 0 (the server's) to 19, got %d", s.CodeNice)
	case s.CodeDemoteAfter < 0 || s.CodeDemoteAfter > 10*time.Minute:
		return fmt.Errorf("PERGOLA_CODE_DEMOTE_AFTER: must be 0 (never demote) or how long a code node runs before its priority is lowered, at most 10m, such as 200ms; got %s", s.CodeDemoteAfter)
	case s.ModelWait < 0 || s.ModelWait > 10*time.Minute:
		return fmt.Errorf("PERGOLA_MODEL_WAIT: must be between 0 and 10m, got %s", s.ModelWait)
	}
	return nil
}
