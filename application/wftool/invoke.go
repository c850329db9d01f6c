package wftool

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"sync"

	"github.com/cloudwego/eino/callbacks"
	"github.com/cloudwego/eino/components/tool"
	"github.com/cloudwego/eino/schema"

	chatapp "github.com/pergola-ai/pergola/application/chat"
	workflowapp "github.com/pergola-ai/pergola/application/workflow"
	"github.com/pergola-ai/pergola/domain/bot"
	"github.com/pergola-ai/pergola/domain/errs"
	"github.com/pergola-ai/pergola/domain/identity"
	wf "github.com/pergola-ai/pergola/workflow"
)

// wfTool runs one bound workflow.
type wfTool struct {
	s           *Service
	workflowID  int64
	workspaceID int64
	version     int64 // what a published bot runs; 0: the latest
	text        bool  // the pinned version's end node returns text
	caller      identity.Principal
	info        *schema.ToolInfo
}

// Info describes the tool as the workflow was when the agent was built.
func (t *wfTool) Info(context.Context) (*schema.ToolInfo, error) { return t.info, nil }

// ToolOrigin names workflows as the origin of the tool, for metrics.
func (t *wfTool) ToolOrigin() string { return "workflow" }

// InvokableRun runs the workflow with the model's arguments as its
// parameters: the draft in a debug chat of the bot's draft, the pinned
// version otherwise. What the model can correct (wrong parameters, a
// failed node) comes back as "error: ..."; only storage failures are
// errors.
func (t *wfTool) InvokableRun(ctx context.Context, args string, _ ...tool.Option) (string, error) {
	run, ok := bot.RunScopeFrom(ctx)
	if !ok {
		return "error: this tool runs only inside a chat", nil
	}
	params := map[string]any{}
	if strings.TrimSpace(args) != "" {
		if err := json.Unmarshal([]byte(args), &params); err != nil {
			return "error: the arguments must be a JSON object of the workflow's parameters", nil
		}
	}
	text, err := t.returnsText(ctx, run.Draft())
	if err != nil {
		return t.refused(err)
	}
	if t.s.d.Runner == nil {
		return "error: workflows are not available in this process", nil
	}
	req := workflowapp.RunRequest{WorkflowID: t.workflowID, Draft: run.Draft(), Params: params, BotID: run.BotID,
		UserID: run.UserID, ConnectorID: run.ConnectorID, ConversationID: run.ConversationID, AppID: run.AppID, Mode: RunModeBot, Stream: true}
	if !run.Draft() {
		req.Version = t.version
	}
	pr, err := t.s.d.Runner.Prepare(ctx, t.caller, req)
	if err != nil {
		return t.refused(err)
	}
	out, inChat := chatapp.OutputFrom(ctx)
	relay := &relay{out: out, answer: text}
	var sink wf.EventSink
	if inChat {
		sink = relay
	}
	// The chat's model callbacks travel in ctx; the workflow's own llm
	// nodes must not be taken for the bot's model.
	res, err := pr.Execute(callbacks.InitCallbacks(ctx, nil), sink)
	if err != nil {
		return "", err
	}
	return t.outcome(res, text, out, inChat)
}

// outcome turns a finished or interrupted run into the tool's result.
func (t *wfTool) outcome(res *workflowapp.Outcome, text bool, out *chatapp.ToolOutput, inChat bool) (string, error) {
	switch {
	case res.Failure != nil:
		return failedResult(res), nil
	case res.Interrupt != nil:
		return t.asked(res, text, out, inChat)
	case !text:
		b, err := json.Marshal(res.Result.Output)
		if err != nil {
			return "", err
		}
		return string(b), nil
	case !inChat:
		return res.Result.Text, nil
	}
	return res.Result.Text, out.AnswerDirectly()
}

// failedResult is what the model reads of a failed run. A model node's
// failure carries the provider's words and address, which are the
// builder's to read in the run history, not the end user's: the model
// only learns that the node's model did not answer.
func failedResult(res *workflowapp.Outcome) string {
	f := res.Failure
	if f.Type != "llm" {
		return "error: the workflow failed: " + f.Error()
	}
	label := f.NodeID
	if f.Title != "" {
		label = f.Title
	}
	ref := ""
	if res.Run != nil {
		ref = fmt.Sprintf(" (run %d has the detail)", res.Run.ID)
	}
	return "error: the workflow failed: the model of its node " + label + " did not answer" + ref
}

// returnsText tells whether the run's end node returns text: that of the
// pinned version, or of the draft as it is now.
func (t *wfTool) returnsText(ctx context.Context, draft bool) (bool, error) {
	if !draft {
		return t.text, nil
	}
	w, err := t.s.d.Workflows.GetWorkflow(ctx, t.workflowID)
	if err == nil && w.WorkspaceID != t.workspaceID {
		err = errs.NotFound("workflow", "")
	}
	if err != nil {
		return false, err
	}
	sh, err := shapeOf(w.Definition)
	if err != nil {
		return false, errs.Invalid("workflow", "the draft cannot be read: %v", err)
	}
	return sh.text, nil
}

// refused turns an error the model or the builder can act on into the
// tool's result.
func (t *wfTool) refused(err error) (string, error) {
	switch {
	case errors.Is(err, errs.ErrNotFound), errors.Is(err, errs.ErrForbidden):
		return "error: the workflow " + t.info.Name + " is not available any more", nil
	case errors.Is(err, errs.ErrInvalid):
		return "error: " + err.Error(), nil
	}
	return "", err
}

// relay shows a run's messages in the chat: the end node's text as the
// bot's answer, streamed, when the workflow returns text; every message
// node's text as an intermediate message once complete.
type relay struct {
	out    *chatapp.ToolOutput
	answer bool

	mu      sync.Mutex
	pending map[string]*strings.Builder // message node → its text so far
}

// Emit never blocks: the chat's sink queues.
func (r *relay) Emit(e wf.Event) {
	if e.Kind != wf.EventMessage {
		return
	}
	switch e.Type {
	case "end":
		if r.answer {
			r.out.AnswerDelta(e.Text)
		}
	case "message":
		r.message(e)
	}
}

func (r *relay) message(e wf.Event) {
	r.mu.Lock()
	if r.pending == nil {
		r.pending = map[string]*strings.Builder{}
	}
	b := r.pending[e.NodeID]
	if b == nil {
		b = &strings.Builder{}
		r.pending[e.NodeID] = b
	}
	b.WriteString(e.Text)
	text := ""
	if e.Final {
		text = b.String()
		delete(r.pending, e.NodeID)
	}
	r.mu.Unlock()
	if text != "" {
		r.out.Message(text)
	}
}
