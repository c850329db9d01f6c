package workflow

import (
	"context"
	"fmt"
	"strconv"
	"strings"
	"sync"
)

// frame is one execution of one graph: the run's top level, one iteration
// of a loop body, one item of a batch, one call of a sub-workflow. It holds
// the outputs of the graph's nodes; references read them, going up to the
// enclosing frames for nodes outside a body.
type frame struct {
	run    *runCtx
	plan   *graphPlan
	parent *frame // the frame of the composite node; nil at a run's top and in a sub-workflow
	path   string // the composite nodes above, for records: "loop1", "sub1/loop2"
	index  int    // the iteration or item; -1 outside loops and batches
	key    string // the frame's place in the run, for checkpoints: "/loop1#2/sub1"
	item   any
	loop   *loopVars
	params map[string]any // what the start node outputs: the run's or a sub-workflow call's parameters

	mu      sync.Mutex
	outs    []map[string]any
	ran     []bool
	waits   map[int]chan struct{}
	signal  loopSignal
	failure error // the first unhandled node failure in this frame
	streams map[int]*textPipe
	renders map[int]*renderer
}

// loopSignal is what a break or continue node asked of the iteration.
type loopSignal uint8

const (
	signalNone loopSignal = iota
	signalContinue
	signalBreak
)

// loopVars are the variables of one run of a loop, shared by its
// iterations.
type loopVars struct {
	mu   sync.Mutex
	vals map[string]any
}

func (l *loopVars) get(name string) (any, bool) {
	l.mu.Lock()
	defer l.mu.Unlock()
	v, ok := l.vals[name]
	return v, ok
}

func (l *loopVars) set(name string, v any) {
	l.mu.Lock()
	l.vals[name] = v
	l.mu.Unlock()
}

type frameKey struct{}

func withFrame(ctx context.Context, f *frame) context.Context {
	return context.WithValue(ctx, frameKey{}, f)
}

func frameFrom(ctx context.Context) *frame {
	f, _ := ctx.Value(frameKey{}).(*frame)
	return f
}

// newFrame starts a frame of plan under parent.
func (rc *runCtx) newFrame(plan *graphPlan, parent *frame, path string, index int) *frame {
	n := len(plan.nodes)
	f := &frame{run: rc, plan: plan, parent: parent, path: path, index: index,
		outs: make([]map[string]any, n), ran: make([]bool, n)}
	if parent != nil && plan.owner != nil {
		f.key = parent.nodeKey(plan.owner) + "#" + strconv.Itoa(index)
	}
	return f
}

// setOutput stores a node's outputs and wakes those waiting for them.
func (f *frame) setOutput(idx int, out map[string]any) {
	f.mu.Lock()
	f.outs[idx], f.ran[idx] = out, true
	ch := f.waits[idx]
	delete(f.waits, idx)
	f.mu.Unlock()
	if ch != nil {
		close(ch)
	}
}

// output returns a node's outputs; ok is false when it has not run.
func (f *frame) output(idx int) (map[string]any, bool) {
	if idx < 0 {
		return nil, false
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.outs[idx], f.ran[idx]
}

// hasRun reports whether node idx ran in f.
func (f *frame) hasRun(idx int) bool {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.ran[idx]
}

// noteFailure keeps the first unhandled failure of the frame.
func (f *frame) noteFailure(err error) {
	f.mu.Lock()
	if f.failure == nil {
		f.failure = err
	}
	f.mu.Unlock()
}

// setSignal records a break or continue; break wins.
func (f *frame) setSignal(s loopSignal) {
	f.mu.Lock()
	if s > f.signal {
		f.signal = s
	}
	f.mu.Unlock()
}

// resolveRef reads what a bound reference points at; null when the node
// was skipped or the path is missing.
func (f *frame) resolveRef(r boundRef) any {
	fr := f
	for i := 0; i < r.up && fr != nil; i++ {
		fr = fr.parent
	}
	if fr == nil {
		return nil
	}
	if r.idx < 0 {
		return fr.ownerValue(r.path)
	}
	out, ran := fr.output(r.idx)
	if !ran || out == nil {
		return nil
	}
	if len(r.path) == 0 {
		return out
	}
	v, _ := valueAt(out, r.path)
	return v
}

// loopSignal returns what a break or continue node asked.
func (f *frame) loopSignal() loopSignal {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.signal
}

// ownerValue reads item, index or a loop variable of the composite node f
// runs for.
func (f *frame) ownerValue(path []string) any {
	if len(path) == 0 {
		return nil
	}
	var v any
	switch path[0] {
	case "item":
		v = f.item
	case "index":
		v = int64(f.index)
	default:
		if f.loop != nil {
			v, _ = f.loop.get(path[0])
		}
	}
	v, _ = valueAt(v, path[1:])
	return v
}

// resolveInputs computes a node's inputs and checks their declared types.
// With Coze's conversions, what cannot be converted is null and a warning.
func (f *frame) resolveInputs(ctx context.Context, pn *planNode) (map[string]any, []string, error) {
	in := make(map[string]any, len(pn.inputs))
	var warns []string
	for i := range pn.inputs {
		b := &pn.inputs[i]
		v, err := f.resolveInput(ctx, b, &warns)
		if err != nil {
			return in, warns, fmt.Errorf("input %s: %w", b.name, err)
		}
		if b.want.Type != TypeAny {
			if v, err = f.typedInput(b.want, v, b.name, &warns); err != nil {
				return in, warns, fmt.Errorf("input %s: %w", b.name, err)
			}
			if f.run.coze && fillsZero(pn.typ) {
				v = zeroFilled(b.want, v)
			}
		}
		in[b.name] = v
	}
	return in, warns, nil
}

func (f *frame) resolveInput(ctx context.Context, b *boundInput, warns *[]string) (any, error) {
	switch b.kind {
	case inLiteral:
		return b.value, nil
	case inRef:
		return f.resolveRef(b.ref), nil
	case inVariable:
		return f.run.variable(ctx, b.variable, b.want)
	case inObject:
		return f.resolveObject(ctx, b.fields, warns)
	}
	var buf []byte
	for _, p := range b.pieces {
		if p.ref == nil {
			buf = append(buf, p.text...)
			continue
		}
		buf = append(buf, text(f.resolveRef(*p.ref))...)
	}
	return string(buf), nil
}

// variable reads a sys.* value of the run or a bot variable of its end
// user, which the reading input declares of type want; bot variables are
// read once per run.
func (rc *runCtx) variable(ctx context.Context, name string, want Schema) (any, error) {
	s := rc.in.Scope
	switch name {
	case "sys.user_id":
		return s.UserID, nil
	case "sys.connector_id":
		return s.ConnectorID, nil
	case "sys.bot_id":
		return idText(s.BotID), nil
	case "sys.workflow_id":
		return idText(s.WorkflowID), nil
	case "sys.execute_id":
		return idText(rc.in.RunID), nil
	}
	if name, ok := strings.CutPrefix(name, appPrefix); ok {
		return rc.appVariable(ctx, name)
	}
	if rc.coze {
		return rc.cozeBotVariable(ctx, name, want)
	}
	v, ok, err := rc.botVariable(ctx, name)
	if err != nil {
		return nil, err
	}
	if !ok {
		return nil, fmt.Errorf("bot %d has no variable %q", s.BotID, name)
	}
	return v, nil
}

func idText(id int64) string {
	if id == 0 {
		return ""
	}
	return strconv.FormatInt(id, 10)
}

// resolveObject assembles an object input from its fields.
func (f *frame) resolveObject(ctx context.Context, fields []boundInput, warns *[]string) (map[string]any, error) {
	out := make(map[string]any, len(fields))
	for i := range fields {
		v, err := f.resolveInput(ctx, &fields[i], warns)
		if err != nil {
			return nil, err
		}
		if fields[i].want.Type != TypeAny && fields[i].want.Type != "" {
			if v, err = f.typedInput(fields[i].want, v, fields[i].name, warns); err != nil {
				return nil, fmt.Errorf("field %s: %w", fields[i].name, err)
			}
		}
		out[fields[i].name] = v
	}
	return out, nil
}
