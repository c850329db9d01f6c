package workflow

import (
	"time"

	"github.com/cloudwego/eino/schema"
)

// EventKind says what an Event reports.
type EventKind string

// The events of a run, in the order a run emits them: NodeStarted and
// NodeFinished around every node, Message for the text of message nodes
// and of the end node.
const (
	EventNodeStarted  EventKind = "node_started"
	EventNodeFinished EventKind = "node_finished"
	EventMessage      EventKind = "message"
	// EventInterrupt ends a run that waits for an answer; Interrupt says
	// what it asks.
	EventInterrupt EventKind = "interrupt"
)

// Event is one thing that happened in a run. It is a plain value: the
// engine knows nothing of how the HTTP edge encodes it.
type Event struct {
	Kind   EventKind
	RunID  int64
	NodeID string
	Type   string
	Title  string
	// Message: Text is the next piece of the node's message; Final is set
	// on its last piece (whose Text may be empty).
	Text  string
	Final bool
	// Usage is the tokens the node used, on its last Message.
	Usage Usage
	// Record is set on NodeFinished.
	Record *NodeRecord
	// Interrupt is set on EventInterrupt.
	Interrupt *Interrupt
}

// Usage counts model tokens.
type Usage struct {
	InputTokens  int64
	OutputTokens int64
}

// Total returns input plus output tokens.
func (u Usage) Total() int64 { return u.InputTokens + u.OutputTokens }

func (u *Usage) add(o Usage) {
	u.InputTokens += o.InputTokens
	u.OutputTokens += o.OutputTokens
}

// NodeStatus is how a node ended.
type NodeStatus string

// The statuses of a node record. A node whose error was handled (on_error
// "default" or "branch") is Failed with Handled set; the run went on.
const (
	NodeSucceeded NodeStatus = "success"
	NodeFailed    NodeStatus = "failed"
	NodeSkipped   NodeStatus = "skipped" // on a branch the run did not take
	// NodeInterrupted is a question or input node that stopped the run to
	// wait for an answer; it runs again, with the answer, on resume.
	NodeInterrupted NodeStatus = "interrupted"
)

// NodeRecord is what the run history keeps of one node execution.
type NodeRecord struct {
	RunID  int64
	NodeID string
	Type   string
	Title  string
	// Parent is the path of the composite nodes the node ran in, e.g.
	// "loop1" or "sub1/loop2"; empty at the top level. Index is the
	// iteration or batch item (-1 outside loops and batches).
	Parent    string
	Index     int
	Status    NodeStatus
	Handled   bool
	Inputs    map[string]any
	Outputs   map[string]any
	Error     string
	Logs      string // what a code node printed with console.log
	StartedAt time.Time
	Duration  time.Duration
	Usage     Usage
	Attempts  int
	// Model is the last model call of an llm node, for traces; nil for
	// other nodes and for an llm node that called no model.
	Model *ModelCall
}

// ModelCall is what one model call of an llm node sent and got back.
// Input and Output must not be changed.
type ModelCall struct {
	ModelID       string // the model's id (GET /api/models)
	Stream        bool
	Input         []*schema.Message
	Output        *schema.Message // nil when the call failed
	ResponseID    string          // the provider's id of the completion, when it gives one
	FinishReasons []string
}
