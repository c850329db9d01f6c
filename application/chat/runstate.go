package chat

import (
	"context"
	"strings"
	"sync"
	"time"

	"github.com/cloudwego/eino/schema"

	"github.com/pergola-ai/pergola/domain/conversation"
)

// runState is what one run learns as it goes, fed by the model callbacks
// and the tool middleware: the transcript, the messages to keep, the
// tokens used and the client tool calls it stopped for.
type runState struct {
	s *Service
	t *turn

	mu         sync.Mutex
	lastInput  []*schema.Message // what the model saw last
	lastOutput *schema.Message   // the model's last complete message, or a tool's direct answer
	calling    *schema.Message   // the model's message whose tool calls run now
	results    []*schema.Message // tool messages of the current round
	pending    []conversation.ToolCall
	out        []*conversation.Message // the assistant's messages, to store
	usage      conversation.Usage
	answer     *conversation.Message // the answer being streamed
	text       strings.Builder
	modelStart time.Time
	direct     string // the call id of a tool that answers for the bot
	asked      *askedTool
	askedFrom  []*schema.Message // the transcript an open question resumes, kept across turns
	// modelFailed: a model call failed, so the run's error is the model's.
	modelFailed bool
	// sources are the documents recalled for the answer, cited at its end
	// when the bot shows its sources.
	sources []string
	// handoff is the transfer a tool asked for in the current rounds, and
	// handoffs counts the transfers of the turn.
	handoff  *handoff
	handoffs int
}

// failModel notes that a model call failed.
func (rs *runState) failModel() {
	rs.mu.Lock()
	rs.modelFailed = true
	rs.mu.Unlock()
}

type runKey struct{}

// runFrom returns the run a tool call belongs to.
func runFrom(ctx context.Context) *runState {
	rs, _ := ctx.Value(runKey{}).(*runState)
	return rs
}

// waitFor notes a client tool call the run stops for.
func (rs *runState) waitFor(callID, name, args string) {
	rs.mu.Lock()
	defer rs.mu.Unlock()
	rs.pending = append(rs.pending, conversation.ToolCall{ID: callID, Name: name, Arguments: args})
}
