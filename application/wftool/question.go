package wftool

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/cloudwego/eino/callbacks"

	chatapp "github.com/pergola-ai/pergola/application/chat"
	workflowapp "github.com/pergola-ai/pergola/application/workflow"
	"github.com/pergola-ai/pergola/domain/bot"
	"github.com/pergola-ai/pergola/domain/errs"
	wf "github.com/pergola-ai/pergola/workflow"
)

// Pending is a tool workflow stopped by a question node: what the chat
// runtime keeps for the conversation until the end user's next message,
// which answers it through Service.Resume. It is plain JSON.
type Pending struct {
	WorkflowID int64  `json:"workflow_id"`
	EventID    string `json:"event_id"`
	Kind       int    `json:"kind"`
	Text       bool   `json:"text"` // the workflow's end node returns text
	Question   string `json:"question"`
	CreatorID  int64  `json:"creator_id"`
}

// questionText renders a question for the chat: the question and, for an
// option question, its options numbered from 1.
func questionText(in *wf.Interrupt) string {
	var b strings.Builder
	b.WriteString(in.Question)
	for i, o := range in.Options {
		fmt.Fprintf(&b, "\n%d. %s", i+1, o)
	}
	if in.Kind == wf.InterruptInput && len(in.Fields) > 0 {
		names := make([]string, len(in.Fields))
		for i, f := range in.Fields {
			names[i] = f.Name
		}
		fmt.Fprintf(&b, "\n(answer with a JSON object of: %s)", strings.Join(names, ", "))
	}
	return b.String()
}

// asked ends the turn with the workflow's question as the bot's answer.
// The tool's result is the Pending as JSON, prefixed so the runtime can
// tell it from any other result; see ParsePending.
func (t *wfTool) asked(out *workflowapp.Outcome, text bool, o *chatapp.ToolOutput, inChat bool) (string, error) {
	q := questionText(out.Interrupt)
	p := Pending{WorkflowID: t.workflowID, EventID: out.EventID, Kind: int(out.Interrupt.Kind), Text: text,
		Question: q, CreatorID: t.caller.UserID}
	b, _ := json.Marshal(p)
	if !inChat {
		return pendingPrefix + string(b), nil
	}
	o.AnswerDelta(q)
	return pendingPrefix + string(b), o.AnswerDirectly()
}

// pendingPrefix marks the result of a tool whose workflow asked a question.
const pendingPrefix = "workflow-question:"

// ParsePending reads the Pending a tool result carries, if any.
func ParsePending(result string) (*Pending, bool) {
	raw, ok := strings.CutPrefix(result, pendingPrefix)
	if !ok {
		return nil, false
	}
	var p Pending
	if json.Unmarshal([]byte(raw), &p) != nil || p.EventID == "" {
		return nil, false
	}
	return &p, true
}

// Resume answers a pending question with the end user's message and runs
// the workflow on, streaming into the chat ctx belongs to as a tool call
// does (call it inside the chat's run, with bot.RunScopeFrom set). It
// returns what the agent continues with: the workflow's JSON output, or
// its text (then the bot's answer, streamed already, and the turn ends
// when ctx is a tool call's), or a new pending question as ParsePending
// reads it. An answer that does not fit the question is errs.ErrInvalid
// and leaves it pending; one answered already is errs.ErrConflict.
func (s *Service) Resume(ctx context.Context, b *bot.Bot, p *Pending, answer string) (string, error) {
	if s.d.Runner == nil {
		return "", errs.New(errs.ErrUnavailable, "workflows are not available in this process")
	}
	t := &wfTool{s: s, workflowID: p.WorkflowID, workspaceID: b.WorkspaceID, caller: botCaller(b)}
	o, inChat := chatapp.OutputFrom(ctx)
	rl := &relay{out: o, answer: p.Text}
	var sink wf.EventSink
	if inChat {
		sink = rl
	}
	out, err := s.d.Runner.Resume(callbacks.InitCallbacks(ctx, nil), t.caller,
		workflowapp.ResumeRequest{WorkflowID: p.WorkflowID, EventID: p.EventID, Data: answer, InterruptType: p.Kind, Stream: true}, sink)
	if err != nil {
		return "", err
	}
	return t.outcome(out, p.Text, o, inChat)
}
