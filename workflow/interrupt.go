package workflow

import (
	"context"
	"encoding/json"
	"errors"
	"maps"
	"slices"
	"strconv"
	"strings"
	"sync"

	"github.com/pergola-ai/pergola/domain/errs"
)

// Interrupts. A question or input node stops the run until someone
// answers. The engine keeps no goroutine waiting and hands eino no
// checkpoint: the run ends with RunResult.Interrupt set and a Checkpoint,
// plain JSON the caller stores wherever it likes (the database). Resuming
// runs the workflow again from the start with the checkpoint: every node
// execution it recorded as done (keyed by its place: the frames above it,
// loop iterations and batch items included, and its id) returns its stored
// outputs without running, and the question that stopped the run takes the
// answer. The run thus goes on exactly where it stopped, inside loops,
// batches and sub-workflows, on any process. Nodes that only steer their
// own frame (break, continue, set_variable) are replayed, not stored, so
// loop variables evolve as they did.

// InterruptKind is what an interrupt waits for; the values are Coze's
// interrupt types.
type InterruptKind int

// The interrupt kinds.
const (
	InterruptQuestion InterruptKind = 2 // a question node: free text or an option
	InterruptInput    InterruptKind = 5 // an input node: a form of typed fields
)

// Interrupt is a run stopped by a question or input node.
type Interrupt struct {
	// Key is the place of the node execution that asked; the answer is
	// filed under it.
	Key    string        `json:"key"`
	NodeID string        `json:"node_id"`
	Type   string        `json:"type"`
	Title  string        `json:"title"`
	Kind   InterruptKind `json:"kind"`
	// Question is the rendered question; Options the choices of an option
	// question (an answer must be one of them unless AllowOther).
	Question   string   `json:"question,omitempty"`
	Options    []string `json:"options,omitempty"`
	AllowOther bool     `json:"allow_other,omitempty"`
	// Fields are the form of an input node; the answer is a JSON object.
	Fields []Param `json:"fields,omitempty"`
	// Coze marks a workflow run with Coze's conversions: a form's answer
	// is converted to the fields' types, not checked against them.
	Coze bool `json:"coze,omitempty"`
}

// CheckAnswer checks an answer before a run resumes with it: an option
// question takes one of its options (or its number, from 1), an input
// node a JSON object of its fields. It returns errs.ErrInvalid naming
// resume_data.
func (in *Interrupt) CheckAnswer(answer string) error {
	switch {
	case in.Kind == InterruptInput && in.Coze:
		_, err := cozeFormValues(in.Fields, answer)
		return err
	case in.Kind == InterruptInput:
		_, err := formValues(in.Fields, answer)
		return err
	case len(in.Options) > 0 && !in.AllowOther:
		if _, ok := pickOption(in.Options, answer); !ok {
			return errs.Invalid("resume_data", "must be one of the options: %s", strings.Join(in.Options, ", "))
		}
	case strings.TrimSpace(answer) == "":
		return errs.Invalid("resume_data", "is required: the answer to %q", in.Question)
	}
	return nil
}

// pickOption finds the option an answer names, by text (case aside) or
// number from 1.
func pickOption(options []string, answer string) (int, bool) {
	a := strings.TrimSpace(answer)
	for i, o := range options {
		if strings.EqualFold(o, a) {
			return i, true
		}
	}
	if n, err := strconv.Atoi(a); err == nil && n >= 1 && n <= len(options) {
		return n - 1, true
	}
	return -1, false
}

// formValues reads the answer to an input node: a JSON object whose
// values conform to the fields.
func formValues(fields []Param, answer string) (map[string]any, error) {
	v, err := decodeValue([]byte(answer))
	obj, ok := v.(map[string]any)
	if err != nil || !ok {
		return nil, errs.Invalid("resume_data", "must be a JSON object of the form's fields")
	}
	out, err := conformParams(fields, obj)
	if err != nil {
		return nil, errs.Invalid("resume_data", "%v", err)
	}
	return out, nil
}

// Checkpoint is the state of an interrupted run: what each finished node
// execution output, the answers given so far, and the interrupts still
// waiting for one. It is plain JSON.
type Checkpoint struct {
	Done    map[string]DoneNode `json:"done,omitempty"`
	Answers map[string]string   `json:"answers,omitempty"`
	// Pending are the keys of the interrupts waiting when the run stopped,
	// oldest first; the first is the one the run surfaced.
	Pending []string `json:"pending,omitempty"`
}

// DoneNode is a finished node execution: its outputs and, for branches,
// the port it took.
type DoneNode struct {
	Out  map[string]any `json:"out"`
	Port string         `json:"port,omitempty"`
}

// Answer returns a copy of the checkpoint with the answer to in, ready to
// resume from.
func (cp *Checkpoint) Answer(in *Interrupt, answer string) *Checkpoint {
	out := &Checkpoint{Done: maps.Clone(cp.Done), Answers: maps.Clone(cp.Answers), Pending: slices.Clone(cp.Pending)}
	if out.Answers == nil {
		out.Answers = map[string]string{}
	}
	out.Answers[in.Key] = answer
	return out
}

// Marshal encodes the checkpoint.
func (cp *Checkpoint) Marshal() ([]byte, error) { return json.Marshal(cp) }

// UnmarshalCheckpoint decodes a checkpoint Marshal wrote; numbers come
// back as the engine's integers and floats.
func UnmarshalCheckpoint(b []byte) (*Checkpoint, error) {
	var raw struct {
		Done    map[string]json.RawMessage `json:"done"`
		Answers map[string]string          `json:"answers"`
		Pending []string                   `json:"pending"`
	}
	if err := json.Unmarshal(b, &raw); err != nil {
		return nil, err
	}
	cp := &Checkpoint{Done: make(map[string]DoneNode, len(raw.Done)), Answers: raw.Answers, Pending: raw.Pending}
	for k, r := range raw.Done {
		v, err := decodeValue(r)
		if err != nil {
			return nil, err
		}
		m, _ := v.(map[string]any)
		out, _ := m["out"].(map[string]any)
		port, _ := m["port"].(string)
		cp.Done[k] = DoneNode{Out: out, Port: port}
	}
	return cp, nil
}

// errInterrupted is what a question or input node returns to stop the
// run; the interrupt itself is noted on the run.
var errInterrupted = errors.New("the run waits for an answer")

// replayable reports whether a node's outputs are stored in checkpoints:
// nodes that only steer their own frame are run again instead.
func replayable(pn *planNode) bool {
	switch pn.typ {
	case "break", "continue", "set_variable":
		return false
	}
	return true
}

// nodeKey is the place of a node execution in the run.
func (f *frame) nodeKey(pn *planNode) string { return f.key + "/" + pn.id }

// replayed returns the stored outputs of a node execution of a resumed
// run.
func (rc *runCtx) replayed(key string) (DoneNode, bool) {
	if rc.in.Resume == nil {
		return DoneNode{}, false
	}
	d, ok := rc.in.Resume.Done[key]
	return d, ok
}

// answer returns the answer given to the interrupt at key.
func (rc *runCtx) answer(key string) (string, bool) {
	if rc.in.Resume == nil {
		return "", false
	}
	a, ok := rc.in.Resume.Answers[key]
	return a, ok
}

// noteDone keeps a finished node execution for the checkpoint.
func (rc *runCtx) noteDone(key string, out map[string]any, port string) {
	rc.mu.Lock()
	if rc.done == nil {
		rc.done = map[string]DoneNode{}
	}
	rc.done[key] = DoneNode{Out: cloneValue(out).(map[string]any), Port: port}
	rc.mu.Unlock()
}

// checkpoint assembles the state to resume from: what the run resumed
// from, and what ran since.
func (rc *runCtx) checkpoint() *Checkpoint {
	rc.mu.Lock()
	defer rc.mu.Unlock()
	cp := &Checkpoint{Done: map[string]DoneNode{}, Answers: map[string]string{}}
	if r := rc.in.Resume; r != nil {
		maps.Copy(cp.Done, r.Done)
		maps.Copy(cp.Answers, r.Answers)
	}
	maps.Copy(cp.Done, rc.done)
	for _, in := range rc.pendingLocked() {
		cp.Pending = append(cp.Pending, in.Key)
	}
	return cp
}

// running counts the nodes of a run that are running. When a question
// interrupts the run, nodes already running on other branches finish and
// are kept in the checkpoint before the run stops (as Coze's graph ends
// the step it is in), so a resume does not run them again. The zero value
// is ready to use.
type running struct {
	mu   sync.Mutex
	n    int
	idle chan struct{} // closed when n drops to 0 while someone waits
}

// start counts a node that begins to run.
func (r *running) start() {
	r.mu.Lock()
	r.n++
	r.mu.Unlock()
}

// done counts a node that stopped running.
func (r *running) done() {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.n--
	if r.n == 0 && r.idle != nil {
		close(r.idle)
		r.idle = nil
	}
}

// wait returns once no node runs, or when ctx ends.
func (r *running) wait(ctx context.Context) {
	r.mu.Lock()
	if r.n == 0 {
		r.mu.Unlock()
		return
	}
	if r.idle == nil {
		r.idle = make(chan struct{})
	}
	idle := r.idle
	r.mu.Unlock()
	select {
	case <-idle:
	case <-ctx.Done():
	}
}
