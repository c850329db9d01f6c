// Package trace records what a chat turn or a workflow run did as a tree
// of spans (the turn or run, its model calls, tool calls and nodes), kept
// in memory while it runs and handed, finished, to a bounded background
// writer that stores it for the builder and exports it over OTLP. Nothing
// here touches storage on the run's path.
package trace

import (
	"time"
	"unicode/utf8"
)

// Kinds of traces and spans.
const (
	KindChat     = "chat"      // a chat turn (trace and root span)
	KindWorkflow = "workflow"  // a workflow run (trace and root span)
	KindModel    = "model"     // one model call
	KindTool     = "tool"      // one tool call
	KindRetrieve = "retrieval" // one knowledge recall of a chat turn
	KindNode     = "node"      // one node execution of a workflow
)

// Span statuses.
const (
	StatusOK    = "ok"
	StatusError = "error"
)

// Bounds: a text attribute (prompt, completion, arguments, result, node
// inputs and outputs) keeps at most MaxText bytes, a trace at most
// MaxSpans spans; what is cut is said (attribute "truncated", span
// "spans_dropped" on the root).
const (
	MaxText  = 8 << 10
	MaxSpans = 512
)

// Span is one step of a trace: when it ran, what it was, how it ended.
// Attribute names follow OpenTelemetry's GenAI conventions (gen_ai.*)
// where one exists, pergola.* otherwise.
type Span struct {
	Name       string         `json:"name"`
	Kind       string         `json:"kind"`
	Start      time.Time      `json:"start"`
	End        time.Time      `json:"end"`
	DurationMS float64        `json:"duration_ms"`
	Status     string         `json:"status"`
	Error      string         `json:"error,omitempty"`
	Attributes map[string]any `json:"attributes"`
	Children   []*Span        `json:"children"`
}

// Trace is the finished span tree of one run of a chat turn or workflow.
// ID is the chat id or the workflow run's execute id; a turn resumed
// (tool outputs, an answer) or a workflow resumed adds another Trace with
// the same ID.
type Trace struct {
	ID          int64
	WorkspaceID int64
	Kind        string
	Root        *Span
}

func newSpan(name, kind string, start time.Time) *Span {
	return &Span{Name: name, Kind: kind, Start: start, Status: StatusOK, Attributes: map[string]any{}, Children: []*Span{}}
}

// finish ends s at end with err (nil: ok).
func (s *Span) finish(end time.Time, err string) {
	s.End = end
	s.DurationMS = float64(end.Sub(s.Start).Microseconds()) / 1000
	if err != "" {
		s.Status, s.Error = StatusError, bound(err)
	}
}

// setText sets a content attribute, cut to MaxText bytes.
func (s *Span) setText(key, v string) {
	if len(v) > MaxText {
		s.Attributes[AttrTruncated] = true
	}
	s.Attributes[key] = bound(v)
}

// bound cuts v to MaxText bytes on a rune boundary.
func bound(v string) string {
	if len(v) <= MaxText {
		return v
	}
	cut := MaxText
	for cut > 0 && !utf8.RuneStart(v[cut]) {
		cut--
	}
	return v[:cut]
}

// Walk calls fn for s and every span under it, parents first.
func (s *Span) Walk(fn func(sp, parent *Span)) { s.walk(nil, fn) }

func (s *Span) walk(parent *Span, fn func(sp, parent *Span)) {
	fn(s, parent)
	for _, c := range s.Children {
		c.walk(s, fn)
	}
}

// count returns the number of spans in the tree.
func (s *Span) count() int {
	n := 0
	s.Walk(func(*Span, *Span) { n++ })
	return n
}

// IsContent reports whether attribute key carries content (prompts,
// completions, arguments, results, node data, questions), which exports
// leave out when content capture is off.
func IsContent(key string) bool {
	switch key {
	case AttrSystem, AttrPrompt, AttrCompletion, AttrToolArgs, AttrToolResult, AttrNodeInputs, AttrNodeOutputs, AttrInterrupt, AttrQuery, AttrHits:
		return true
	}
	return false
}
