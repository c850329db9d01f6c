package workflow

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"sync/atomic"
	"time"

	"github.com/pergola-ai/pergola/domain/errs"
)

// RunInput is one run of a compiled workflow.
type RunInput struct {
	// RunID names the run (Coze's execute_id); records and events carry it.
	RunID int64
	// Params are the start node's parameters. Missing required ones and
	// values of the wrong type fail with errs.ErrInvalid before anything
	// runs; numbers and booleans sent as text are converted.
	Params map[string]any
	Scope  Scope
	// Stream makes llm nodes stream their text into the end and message
	// nodes that show it, as Message events.
	Stream bool
	// Events receives the run's events; nil discards them.
	Events EventSink
	// Resume is the checkpoint of an interrupted run, with the answer
	// added (Checkpoint.Answer): the run replays what was done and goes
	// on from the node that asked. Params must be those of the first run.
	Resume *Checkpoint
	// OwnHistory keeps the run's node records from the engine's
	// HistorySink: the caller stores them itself, from RunResult.Nodes (or
	// RunError.Result.Nodes), when the run ends.
	OwnHistory bool
}

// RunResult is what a finished run returns.
type RunResult struct {
	// Output is what the end node returns: its variables, or {"output":
	// text} when it returns text.
	Output map[string]any
	// Text is the end node's text when it returns text.
	Text string
	// ReturnsText tells that the end node returns text (Text, possibly
	// empty) rather than variables.
	ReturnsText bool
	Usage       Usage
	// Nodes are the records of every node that ran, in the order they
	// finished, then those of the top-level nodes skipped by branches.
	Nodes    []NodeRecord
	Duration time.Duration
	// Interrupt is set when a question or input node stopped the run: it
	// waits for an answer. Checkpoint is then the state to resume from
	// and Output is empty.
	Interrupt  *Interrupt
	Checkpoint *Checkpoint
	// Pending are all the interrupts waiting for an answer, oldest first:
	// Interrupt, then those the next resumes will surface (parallel
	// branches and batch items that asked too).
	Pending []*Interrupt
}

// RunError is a run that failed: the node that failed, or none when the
// run as a whole timed out or was cancelled. It matches errs.ErrInvalid
// for a failed node, so the HTTP edge shows its message.
type RunError struct {
	NodeID  string
	Type    string
	Title   string
	Message string
	// Timeout is set when the run exceeded its time limit.
	Timeout bool
	// Result holds what the run recorded before it failed.
	Result *RunResult
}

func (e *RunError) Error() string {
	if e.NodeID == "" {
		return e.Message
	}
	label := e.NodeID
	if e.Title != "" && e.Title != e.NodeID {
		label += " (" + e.Title + ")"
	}
	return fmt.Sprintf("node %s failed: %s", label, e.Message)
}

// Is makes a RunError match errs.ErrInvalid: the workflow, not the server,
// is what failed.
func (e *RunError) Is(target error) bool { return target == errs.ErrInvalid }

// Run runs a compiled workflow to its end, or until a question or input
// node interrupts it (RunResult.Interrupt). It returns errs.ErrInvalid for
// wrong parameters and a *RunError when a node fails (after its retries,
// unless its error is handled) or the run exceeds Limits.RunTimeout. ctx
// cancels the run.
func (e *Engine) Run(ctx context.Context, c *Compiled, in RunInput) (*RunResult, error) {
	params, warnings, err := c.runParams(in.Params)
	if err != nil {
		return nil, err
	}
	ctx, cancel := context.WithTimeout(withScope(ctx, in.Scope), e.limits.RunTimeout)
	defer cancel()
	rc := &runCtx{ctx: ctx, eng: e, in: in, params: params, sem: make(chan struct{}, e.limits.MaxParallel), started: e.now(),
		coze: c.coze, paramWarnings: warnings}
	rc.records = make([]NodeRecord, 0, c.nodes+4)
	top := rc.newFrame(c.plan, nil, "", -1)
	top.params = params
	err = c.plan.invoke(ctx, top)
	if rc.interrupted() != nil && ctx.Err() == nil {
		rc.running.wait(ctx) // nodes on other branches finish (or ask) first
		rc.ended.Store(true)
		res := rc.result(top, c)
		res.Pending = rc.pending()
		in := res.Pending[0]
		res.Output, res.Text, res.Interrupt, res.Checkpoint = nil, "", in, rc.checkpoint()
		rc.emit(Event{Kind: EventInterrupt, NodeID: in.NodeID, Type: in.Type, Title: in.Title, Interrupt: in})
		return res, nil
	}
	if err == nil {
		rc.recordSkipped(ctx, top)
	}
	rc.ended.Store(true)
	res := rc.result(top, c)
	if err != nil {
		return nil, rc.failure(ctx, err, res)
	}
	return res, nil
}

// CheckParams checks parameters against the start node's, as Run does
// before it starts: errs.ErrInvalid naming the parameter, or nil.
func (c *Compiled) CheckParams(params map[string]any) error {
	_, _, err := c.runParams(params)
	return err
}

// conformParams checks the parameters of a run against the start node's.
func conformParams(params []Param, got map[string]any) (map[string]any, error) {
	out := make(map[string]any, len(params))
	for _, p := range params {
		v, ok := got[p.Name]
		if !ok || v == nil {
			if p.Required {
				return nil, errs.Invalid("parameters."+p.Name, "is required (%s)", p.Schema)
			}
			out[p.Name] = nil
			continue
		}
		c, err := conform(p.Schema, normalize(cloneValue(v)), true)
		if err != nil {
			return nil, errs.Invalid("parameters."+p.Name, "%v", err)
		}
		out[p.Name] = c
	}
	return out, nil
}

// runCtx is what every node of one run shares.
type runCtx struct {
	ctx     context.Context // the run's, for work that outlives one node (stream renderers)
	eng     *Engine
	in      RunInput
	params  map[string]any
	sem     chan struct{}
	started time.Time

	// ended is set when Run returns: a node still finishing on a parallel
	// branch of a failed run is not recorded after the run's records were
	// handed over.
	ended atomic.Bool

	mu      sync.Mutex
	records []NodeRecord
	usage   Usage
	failed  *RunError
	coze    bool      // Coze Studio's conversions
	files   fileNames // the names of file URLs typed inputs stripped
	// paramWarnings are the parameters Coze's conversions could not
	// convert, shown in the start node's logs.
	paramWarnings []string
	vars          map[string]string   // the bot variables, read once
	appVars       map[string]any      // the app variables, read once
	done          map[string]DoneNode // node executions finished in this run, by place
	asked         []*Interrupt        // the interrupts asked, in the order they were
	running       running             // nodes running now
}

// result assembles what the run produced.
func (rc *runCtx) result(top *frame, c *Compiled) *RunResult {
	rc.mu.Lock()
	defer rc.mu.Unlock()
	res := &RunResult{Usage: rc.usage, Nodes: rc.records, Duration: rc.eng.now().Sub(rc.started)}
	endIdx := -1
	for i, pn := range c.plan.nodes {
		if pn.typ == "end" {
			endIdx = i
		}
	}
	if out, ok := top.output(endIdx); ok {
		res.Output = out
		if c.text {
			res.Text, _ = out["output"].(string)
			res.ReturnsText = true
		}
	}
	return res
}

// failure turns the error eino returned into the run's error: the first
// node failure recorded, or the timeout or cancellation.
func (rc *runCtx) failure(ctx context.Context, err error, res *RunResult) error {
	rc.mu.Lock()
	f := rc.failed
	rc.mu.Unlock()
	switch {
	case f != nil:
		f.Result = res
		return f
	case errors.Is(ctx.Err(), context.DeadlineExceeded):
		return &RunError{Timeout: true, Result: res,
			Message: fmt.Sprintf("the run exceeded its time limit of %s", rc.eng.limits.RunTimeout)}
	case ctx.Err() != nil:
		return &RunError{Result: res, Message: "the run was cancelled"}
	}
	return &RunError{Result: res, Message: "the run failed: " + err.Error()}
}

// fail notes the first node failure of the run.
func (rc *runCtx) fail(e *RunError) {
	rc.mu.Lock()
	if rc.failed == nil {
		rc.failed = e
	}
	rc.mu.Unlock()
}

// record keeps a node's record and hands it to the history sink.
func (rc *runCtx) record(ctx context.Context, rec NodeRecord) {
	if rc.ended.Load() {
		return
	}
	rc.mu.Lock()
	rc.records = append(rc.records, rec)
	rc.usage.add(rec.Usage)
	rc.mu.Unlock()
	if h := rc.eng.ports.History; h != nil && !rc.in.OwnHistory {
		h.NodeFinished(ctx, rec)
	}
	if rc.in.Events != nil {
		r := rec
		rc.emit(Event{Kind: EventNodeFinished, NodeID: rec.NodeID, Type: rec.Type, Title: rec.Title, Record: &r})
	}
}

// emit sends an event of the run.
func (rc *runCtx) emit(e Event) {
	if rc.in.Events != nil {
		e.RunID = rc.in.RunID
		rc.in.Events.Emit(e)
	}
}

// recordSkipped records the top-level nodes a branch left out, so the
// history shows every node of the workflow.
func (rc *runCtx) recordSkipped(ctx context.Context, top *frame) {
	for i, pn := range top.plan.nodes {
		if !top.hasRun(i) {
			rc.record(ctx, NodeRecord{RunID: rc.in.RunID, NodeID: pn.id, Type: pn.typ, Title: pn.title,
				Index: -1, Status: NodeSkipped, StartedAt: rc.eng.now()})
		}
	}
}
