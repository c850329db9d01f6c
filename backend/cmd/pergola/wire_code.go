package main

import (
	"fmt"
	"log/slog"
	"os"

	"github.com/pergola-ai/pergola/backend/config"
	wf "github.com/pergola-ai/pergola/workflow"
	"github.com/pergola-ai/pergola/workflow/jsrun"
	"github.com/pergola-ai/pergola/workflow/jsrun/jsproc"
	"github.com/pergola-ai/pergola/workflow/pyrun"
)

// codeWorkerCommand is the hidden sub-command a code-node worker process
// runs: this binary, serving runs on its stdin and stdout.
const codeWorkerCommand = "coderun"

// newCodeRunner returns what runs workflow code nodes, each workspace
// within its share of them: with PERGOLA_CODE_SANDBOX=process (the
// default), a pool of PERGOLA_CODE_PARALLEL worker processes of this
// binary, each with a hard memory limit (a worker whose run outlasts
// PERGOLA_CODE_DEMOTE_AFTER is demoted to nice 19 and replaced after
// it), which stop closes; with inprocess, the engine's runner in this
// process.
func newCodeRunner(cfg config.Config, log *slog.Logger, sh *shares) (wf.CodeRunner, func(), error) {
	lim := wf.DefaultLimits()
	if cfg.CodeSandbox == "inprocess" {
		r := jsrun.NewRunner(jsrun.Limits{Timeout: lim.CodeTimeout, Memory: lim.CodeMemory, Concurrency: cfg.CodeWorkers()})
		return sharedCode{inner: r, slots: sh.code}, func() {}, nil
	}
	exe, err := os.Executable()
	if err != nil {
		return nil, nil, fmt.Errorf("PERGOLA_CODE_SANDBOX=process: cannot find this binary to start code workers: %w", err)
	}
	pool := jsproc.New(jsproc.Config{Command: []string{exe, codeWorkerCommand}, Workers: cfg.CodeWorkers(),
		Limits: jsrun.Limits{Timeout: lim.CodeTimeout, Memory: lim.CodeMemory}, Nice: cfg.Shares.CodeNice,
		DemoteAfter: cfg.Shares.CodeDemoteAfter, Log: log})
	return sharedCode{inner: pool, slots: sh.code}, func() { _ = pool.Close() }, nil
}

// newPythonRunner returns what runs Python code nodes: python3 in a
// bubblewrap sandbox, past a workspace's first run forked from that
// workspace's fork server, else from PERGOLA_PYTHON_WARM to
// PERGOLA_PYTHON_WARM_MAX of them started in advance as demand asks and PERGOLA_CODE_PARALLEL
// running at once, each workspace within its share (and a workspace at
// its share leaving the pool's reserve of PERGOLA_PYTHON_WARM to others);
// a sandbox whose run outlasts PERGOLA_CODE_DEMOTE_AFTER demoted to nice
// 19; or nil (Python nodes then fail validation saying how to enable them)
// when the machine has not the programs. Its sandboxes end with this
// process (bwrap --die-with-parent).
func newPythonRunner(cfg config.Config, log *slog.Logger, sh *shares) wf.PythonRunner {
	_, perWorkspace := sh.python.Slots()
	lim := pyrun.Limits{Warm: cfg.PythonWarm, WarmMax: cfg.PythonWarmMax, Parallel: cfg.CodeWorkers(), PerTenant: perWorkspace,
		DemoteAfter: cfg.Shares.CodeDemoteAfter}
	r, err := pyrun.New(pyrun.Config{Python: cfg.Python, Bwrap: cfg.Bwrap, Limits: lim, Log: log, Tenant: workspaceOf})
	if err != nil {
		log.Info("Python code nodes are off", "reason", err.Error())
		return nil
	}
	return sharedPython{PythonRunner: r, slots: sh.python}
}
