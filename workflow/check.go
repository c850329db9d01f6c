package workflow

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"regexp"
	"strings"

	"github.com/pergola-ai/pergola/domain/errs"
)

// ValidationError lists every problem found in a definition. It matches
// errs.ErrInvalid; each problem is an *errs.FieldError whose field names
// the node and what is wrong in it, e.g. "nodes[llm1].config.model_id".
type ValidationError struct {
	Problems []*errs.FieldError
}

func (e *ValidationError) Error() string {
	first := e.Problems[0].Error()
	if n := len(e.Problems) - 1; n > 0 {
		return fmt.Sprintf("%s (and %d more problems)", first, n)
	}
	return first
}

// Is makes a ValidationError match errs.ErrInvalid.
func (e *ValidationError) Is(target error) bool { return target == errs.ErrInvalid }

// Problems returns the problems of err when it is a *ValidationError, or
// err itself as the only problem when it is a field error.
func Problems(err error) []*errs.FieldError {
	var v *ValidationError
	if errors.As(err, &v) {
		return v.Problems
	}
	var f *errs.FieldError
	if errors.As(err, &f) {
		return []*errs.FieldError{f}
	}
	return nil
}

// nodeSpec is what checking a node tells the rest of the engine.
type nodeSpec struct {
	outputs []Param
	// ports are the branches of condition and intent nodes.
	ports []string
	// want is the schema a named input must have; required lists the
	// inputs that must be set.
	want     map[string]Schema
	required []string
	runner   runner
	// finish runs once the node's inputs are typed (in inTypes); composite
	// nodes check their body there and derive their outputs.
	finish func(c *checker, info *nodeInfo)
	// text is the template of an end node returning text or of a message
	// node, which a streamed run may stream.
	text *template
	// composite marks loop, batch and sub-workflow nodes, which run other
	// nodes and take no slot of the parallelism limit themselves.
	composite bool
	// blocking marks nodes that wait on something outside the engine
	// (models, tools, tables, HTTP, code); only they get a timeout.
	blocking bool
	// streamField is the text output of an llm node, which a streamed run
	// can stream into the end and message nodes showing it.
	streamField string
	// asks marks question and input nodes, which stop a run to wait for
	// an answer.
	asks bool
	// long marks nodes that may take long though they are not blocking
	// (code nodes time themselves out).
	long bool
}

// checker checks a definition and keeps what compiling it needs.
type checker struct {
	ctx      context.Context
	eng      *Engine
	opts     CompileOptions
	problems []*errs.FieldError
	all      map[string]*nodeInfo
	count    int
	stack    []string   // sub-workflows being compiled, to refuse cycles
	cur      *graphInfo // the graph whose nodes are being checked
	// compiling is set when the definition is compiled rather than only
	// validated: sub-workflows must then be resolved.
	compiling bool
	// coze: Coze's conversions; a typed input takes a value of any type.
	coze bool
}

// nodeInfo is a checked node.
type nodeInfo struct {
	node    *Node
	spec    *nodeSpec
	graph   *graphInfo
	index   int
	inTypes map[string]Schema
	bound   []boundInput
	// vars are what a body reads through the composite node's id (item,
	// index, loop variables); body is the checked body.
	vars []Param
	body *graphInfo
	sub  *Compiled // the pinned workflow of a sub-workflow node
}

var nodeIDPattern = regexp.MustCompile(`^[A-Za-z][A-Za-z0-9_-]{0,63}$`)

// fail records a problem with a field.
func (c *checker) fail(field, format string, args ...any) {
	if len(c.problems) < maxProblems {
		c.problems = append(c.problems, &errs.FieldError{Field: field, Reason: fmt.Sprintf(format, args...)})
	}
}

// maxProblems caps the problems reported for one definition.
const maxProblems = 50

// nodeField names a field of node n: nodes[id].rest.
func nodeField(n *Node, rest string) string {
	f := "nodes[" + n.ID + "]"
	if rest != "" {
		f += "." + rest
	}
	return f
}

// err returns the problems as a *ValidationError, or nil.
func (c *checker) err() error {
	if len(c.problems) == 0 {
		return nil
	}
	return &ValidationError{Problems: c.problems}
}

// decodeConfig reads a node's config into dst strictly; problems name the
// node and the field.
func (c *checker) decodeConfig(n *Node, dst any) bool {
	raw := n.Config
	if len(strings.TrimSpace(string(raw))) == 0 || string(raw) == "null" {
		raw = json.RawMessage("{}")
	}
	dec := json.NewDecoder(strings.NewReader(string(raw)))
	dec.DisallowUnknownFields()
	dec.UseNumber()
	if err := dec.Decode(dst); err != nil {
		c.fail(nodeField(n, "config"), "%s", configError(err))
		return false
	}
	return true
}

func configError(err error) string {
	var typeErr *json.UnmarshalTypeError
	if asError(err, &typeErr) && typeErr.Field != "" {
		return fmt.Sprintf("%s must not be %s", typeErr.Field, typeErr.Value)
	}
	if strings.HasPrefix(err.Error(), "json: unknown field ") {
		return "unknown field " + strings.TrimPrefix(err.Error(), "json: unknown field ")
	}
	return err.Error()
}

// checkSettings checks a node's error handling and the ports it adds.
func (c *checker) checkSettings(n *Node) {
	s := n.Settings
	if s == nil {
		return
	}
	if s.TimeoutMS < 0 || s.TimeoutMS > maxTimeoutMS {
		c.fail(nodeField(n, "settings.timeout_ms"), "must be between 0 (the default) and %d (an hour); the run's own limit applies too", maxTimeoutMS)
	}
	if s.Retries < 0 || s.Retries > maxRetries {
		c.fail(nodeField(n, "settings.retries"), "must be between 0 and %d", maxRetries)
	}
	if s.RetryBackoffMS < 0 || s.RetryBackoffMS > 60000 {
		c.fail(nodeField(n, "settings.retry_backoff_ms"), "must be between 0 and 60000")
	}
	switch s.OnError {
	case "", OnErrorFail, OnErrorBranch:
		if len(s.DefaultOutput) > 0 {
			c.fail(nodeField(n, "settings.default_output"), "is used only with on_error \"default\"")
		}
	case OnErrorDefault:
	default:
		c.fail(nodeField(n, "settings.on_error"), "must be fail, default or branch; got %q", s.OnError)
	}
}

// Caps of a node's settings.
const (
	maxRetries   = 5
	maxTimeoutMS = 3600_000
)

// onError returns the node's error handling, "fail" when unset.
func onError(n *Node) string {
	if n.Settings == nil || n.Settings.OnError == "" {
		return OnErrorFail
	}
	return n.Settings.OnError
}

// errorOutput is the output a node whose errors are handled adds: what
// went wrong, or null when nothing did. Workflows with Coze's conversions
// name its fields as Coze's errorBody does (cozeErrorOutput).
var errorOutput = Param{Name: "error", Schema: Schema{Type: TypeObject, Properties: []Param{P("message", TypeString),
	P("code", TypeInteger)}}, Description: "set when the node failed and on_error let the run go on"}

var cozeErrorOutput = Param{Name: "error", Schema: Schema{Type: TypeObject, Properties: []Param{P("errorMessage", TypeString),
	P("errorCode", TypeInteger)}}, Description: "set when the node failed and on_error let the run go on (Coze's errorBody)"}

// successOutput tells, on a node whose errors are handled, whether it
// succeeded.
var successOutput = Param{Name: "success", Schema: S(TypeBoolean),
	Description: "true when the node succeeded, false when it failed and on_error let the run go on"}

// outputsOf returns the outputs a reference to info may read.
func (c *checker) outputsOf(info *nodeInfo) []Param {
	if onError(info.node) == OnErrorFail {
		return info.spec.outputs
	}
	e := errorOutput
	if c.coze {
		e = cozeErrorOutput
	}
	return append(append([]Param(nil), info.spec.outputs...), e, successOutput)
}
