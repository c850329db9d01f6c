package workflow

import (
	"context"
	"errors"
	"fmt"
	"time"
)

// nodeCtx is what a runner sees of the run while it runs one node.
type nodeCtx struct {
	f       *frame
	pn      *planNode
	rc      *runCtx
	port    string // the branch a condition or intent node takes
	attempt int    // 0 for the first attempt, then the retry's number
	usage   Usage
	logs    string
	modelID string     // the model the node calls (chatModel)
	model   *ModelCall // the node's last model call
}

// permanentError is a failure that retrying cannot fix.
type permanentError struct{ err error }

func (e permanentError) Error() string { return e.err.Error() }
func (e permanentError) Unwrap() error { return e.err }

// permanent marks err as not worth retrying.
func permanent(err error) error { return permanentError{err} }

// exec runs one node with its error handling and records it.
func (f *frame) exec(ctx context.Context, pn *planNode) (map[string]any, error) {
	rc := f.run
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	key := f.nodeKey(pn)
	if d, ok := rc.replayed(key); ok && replayable(pn) {
		f.setOutput(pn.idx, d.Out)
		return portOut(pn, d.Port), nil
	}
	if !pn.spec.composite {
		select {
		case rc.sem <- struct{}{}:
			defer func() { <-rc.sem }()
		case <-ctx.Done():
			return nil, ctx.Err()
		}
	}
	rec := NodeRecord{RunID: rc.in.RunID, NodeID: pn.id, Type: pn.typ, Title: pn.title, Parent: f.path,
		Index: f.index, StartedAt: rc.eng.now()}
	if rc.in.Events != nil {
		rc.emit(Event{Kind: EventNodeStarted, NodeID: pn.id, Type: pn.typ, Title: pn.title})
	}
	in, inWarns, err := f.resolveInputs(ctx, pn)
	rec.Inputs = in
	var out map[string]any
	var x *nodeCtx
	if err == nil {
		out, x, err = f.attempts(ctx, pn, in, &rec)
	}
	rec.Duration = rc.eng.now().Sub(rec.StartedAt)
	if len(pn.streamSinks) > 0 {
		f.closeStream(pn.idx, err != nil)
	}
	if x != nil {
		rec.Usage, rec.Logs, rec.Model = x.usage, x.logs, x.model
	}
	rec.Logs = joinLogs(inWarns, rec.Logs)
	if err != nil && rc.interrupted() != nil {
		return f.stop(ctx, pn, rec, err)
	}
	if err != nil {
		return f.failed(ctx, pn, rec, err)
	}
	if pn.onError == OnErrorDefault || pn.onError == OnErrorBranch {
		out["success"] = true
	}
	rec.Status, rec.Outputs = NodeSucceeded, out
	if replayable(pn) {
		rc.noteDone(key, out, x.port) // before the output: streams read the port of a node that ran
	}
	f.setOutput(pn.idx, out)
	rc.record(ctx, rec)
	return portOut(pn, x.port), nil
}

// attempts runs the node until it succeeds or its retries are used up.
func (f *frame) attempts(ctx context.Context, pn *planNode, in map[string]any, rec *NodeRecord) (map[string]any, *nodeCtx, error) {
	var lastErr error
	var x *nodeCtx
	for attempt := 0; attempt <= pn.retries; attempt++ {
		if attempt > 0 && !sleep(ctx, pn.backoff<<(attempt-1)) {
			break
		}
		rec.Attempts = attempt + 1
		x = &nodeCtx{f: f, pn: pn, rc: f.run, attempt: attempt}
		out, err := f.attempt(ctx, pn, x, in)
		if err == nil {
			return out, x, nil
		}
		lastErr = err
		var perm permanentError
		if ctx.Err() != nil || errors.As(err, &perm) || f.run.interrupted() != nil {
			break
		}
	}
	return nil, x, lastErr
}

// attempt runs the node once, within its timeout, and checks its outputs.
func (f *frame) attempt(ctx context.Context, pn *planNode, x *nodeCtx, in map[string]any) (map[string]any, error) {
	actx := ctx
	if pn.spec.blocking {
		var cancel context.CancelFunc
		actx, cancel = context.WithTimeout(ctx, pn.timeout)
		defer cancel()
	}
	out, err := pn.spec.runner.run(actx, x, in)
	if err != nil {
		if ctx.Err() == nil && errors.Is(actx.Err(), context.DeadlineExceeded) {
			return nil, fmt.Errorf("%w after %s", errNodeTimeout, pn.timeout)
		}
		return nil, err
	}
	if f.run.coze {
		return coerceOutputs(pn.outputs, out, x), nil
	}
	return checkOutputs(pn.outputs, out)
}

// checkOutputs keeps the declared outputs of a node, checked against
// their types; a missing output is null, an undeclared one is dropped. It
// works in place: runners return maps of their own.
func checkOutputs(params []Param, out map[string]any) (map[string]any, error) {
	if out == nil {
		out = make(map[string]any, len(params))
	}
	for _, p := range params {
		v, err := conform(p.Schema, normalize(out[p.Name]), false)
		if err != nil {
			return nil, fmt.Errorf("output %s: %w", p.Name, err)
		}
		out[p.Name] = v
	}
	if len(out) > len(params) {
		for k := range out {
			if _, ok := findParam(params, k); !ok {
				delete(out, k)
			}
		}
	}
	return out, nil
}

// failed handles a node that failed for good: its error is recorded and,
// per on_error, the run fails, goes on with the default output, or follows
// the error port.
func (f *frame) failed(ctx context.Context, pn *planNode, rec NodeRecord, err error) (map[string]any, error) {
	rc := f.run
	msg := err.Error()
	if ctx.Err() != nil && f.parent == nil && errors.Is(err, ctx.Err()) {
		msg = "stopped: the run ended"
	}
	rec.Status, rec.Error = NodeFailed, msg
	errValue := map[string]any{"message": msg, "code": errorCode(err)}
	if rc.coze { // Coze's errorBody
		errValue = map[string]any{"errorMessage": msg, "errorCode": errorCode(err)}
	}
	if ctx.Err() != nil {
		rc.record(ctx, rec) // the run is ending: nothing handles this
		return nil, ctx.Err()
	}
	switch pn.onError {
	case OnErrorDefault:
		out, derr := checkOutputs(pn.outputs, cloneValue(pn.defaultOut).(map[string]any))
		if derr != nil {
			out = map[string]any{}
		}
		out["error"], out["success"] = errValue, false
		rec.Handled, rec.Outputs = true, out
		f.setOutput(pn.idx, out)
		rc.record(ctx, rec)
		return portOut(pn, ""), nil
	case OnErrorBranch:
		out := map[string]any{"error": errValue, "success": false}
		rec.Handled, rec.Outputs = true, out
		f.setOutput(pn.idx, out)
		rc.record(ctx, rec)
		return map[string]any{portKey: ErrorPort}, nil
	}
	rc.record(ctx, rec)
	nerr := &RunError{NodeID: pn.id, Type: pn.typ, Title: pn.title, Message: msg}
	f.noteFailure(nerr)
	if f.parent == nil && f.path == "" {
		rc.fail(nerr)
	}
	return nil, nerr
}

// stop ends a node the run's interrupt stopped: the asking node itself is
// recorded as interrupted; nodes around it (the loop holding it, nodes on
// parallel paths that failed since) are not recorded and run again on
// resume.
func (f *frame) stop(ctx context.Context, pn *planNode, rec NodeRecord, err error) (map[string]any, error) {
	if errors.Is(err, errInterrupted) {
		rec.Status = NodeInterrupted
		f.run.record(ctx, rec)
	}
	return nil, errInterrupted
}

// portOut is what a node's lambda returns: the port taken, for branches.
func portOut(pn *planNode, port string) map[string]any {
	if !pn.branching {
		return nil
	}
	return map[string]any{portKey: port}
}

// sleep waits d unless ctx ends first; it reports whether it waited.
func sleep(ctx context.Context, d time.Duration) bool {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return true
	case <-ctx.Done():
		return false
	}
}
