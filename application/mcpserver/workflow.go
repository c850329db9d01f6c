package mcpserver

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"sync"

	workflowapp "github.com/pergola-ai/pergola/application/workflow"
	"github.com/pergola-ai/pergola/domain/errs"
	"github.com/pergola-ai/pergola/domain/identity"
	"github.com/pergola-ai/pergola/domain/workflow"
	wf "github.com/pergola-ai/pergola/workflow"
)

// maxQuestions bounds the questions one call answers (a loop around a
// question node could ask forever).
const maxQuestions = 20

// runWorkflow runs a workflow with the arguments as its parameters and
// answers its questions through the client, when it can ask. It reports
// a progress step per finished node.
func (s *Service) runWorkflow(ctx context.Context, p identity.Principal, t *Tool, args map[string]any, c Client) (*Result, error) {
	ctx, stop := cancellable(ctx)
	defer stop()
	pr, err := s.d.Workflows.Prepare(ctx, p, workflowapp.RunRequest{WorkflowID: t.id, Version: t.version, Params: args, Mode: workflow.RunSync})
	if err != nil {
		return nil, err
	}
	prog := &nodeProgress{ctx: ctx, client: c}
	out, err := pr.Execute(ctx, prog)
	if err != nil {
		return nil, err
	}
	retry := ""
	for asked := 0; out.Interrupt != nil; asked++ {
		if !c.CanAsk() {
			return needsAnswer(t, out, "this client cannot answer questions (it did not declare the MCP elicitation capability)"), nil
		}
		if asked == maxQuestions {
			return needsAnswer(t, out, fmt.Sprintf("the workflow asked %d questions in one call", maxQuestions)), nil
		}
		next, again, res, err := s.answer(ctx, p, t, out, retry, c, prog)
		if res != nil || err != nil {
			return res, err
		}
		out, retry = next, again
	}
	return workflowResult(t, out), nil
}

// answer asks the client the run's question and resumes the run with the
// answer. An answer that does not fit leaves the run as it was and says
// why (retry), to ask again; a declined question ends the call.
func (s *Service) answer(ctx context.Context, p identity.Principal, t *Tool, out *workflowapp.Outcome, retry string,
	c Client, prog *nodeProgress) (next *workflowapp.Outcome, again string, res *Result, err error) {
	q := questionOf(out.Interrupt)
	if retry != "" {
		q.Message = retry + "\n\n" + q.Message
	}
	content, ok, err := c.Ask(ctx, q)
	if err != nil {
		return nil, "", needsAnswer(t, out, "the question could not be asked: "+err.Error()), nil
	}
	if !ok {
		return nil, "", needsAnswer(t, out, "the user declined to answer"), nil
	}
	data, err := answerData(out.Interrupt, content)
	if err == nil {
		next, err = s.d.Workflows.Resume(ctx, p, workflowapp.ResumeRequest{WorkflowID: t.id, EventID: out.EventID, Data: data}, prog)
	}
	if errors.Is(err, errs.ErrInvalid) {
		return out, "That answer does not fit (" + err.Error() + ").", nil, nil
	}
	return next, "", nil, err
}

// workflowResult turns a finished run into the tool's result: the end
// node's output as structured content, its text (or the output as JSON)
// as text.
func workflowResult(t *Tool, out *workflowapp.Outcome) *Result {
	if f := out.Failure; f != nil {
		return toolError(failureText(t, out))
	}
	res := out.Result
	structured := res.Output
	if structured == nil {
		structured = map[string]any{}
	}
	text := res.Text
	if text == "" {
		b, err := json.Marshal(structured)
		if err != nil {
			return toolError("the workflow's output cannot be shown as JSON: " + err.Error())
		}
		text = string(b)
	}
	structured["execute_id"] = strconv.FormatInt(out.Run.ID, 10)
	return &Result{Text: text, Structured: structured}
}

// failureText says briefly why a run failed. A model node's failure
// carries the provider's words, which are the builder's to read in the
// run's history, not the client's.
func failureText(t *Tool, out *workflowapp.Outcome) string {
	f := out.Failure
	label := f.NodeID
	if f.Title != "" {
		label = f.Title
	}
	ref := ""
	if out.Run != nil {
		ref = fmt.Sprintf(" (run %d has the detail)", out.Run.ID)
	}
	if f.Type == "llm" {
		return "the workflow " + t.Title + " failed: the model of its node " + label + " did not answer" + ref
	}
	return "the workflow " + t.Title + " failed: " + f.Error() + ref
}

// needsAnswer is the tool error of a run that waits for an answer the
// call cannot give: what it asks, and how to answer and resume it.
func needsAnswer(t *Tool, out *workflowapp.Outcome, why string) *Result {
	in := out.Interrupt
	ask := in.Question
	if ask == "" {
		ask = in.Title
	}
	hint := fmt.Sprintf(`POST /v1/workflow/stream_resume with {"workflow_id":"%d","event_id":"%s","interrupt_type":%d,"resume_data":"<answer>"}`,
		t.id, out.EventID, in.Kind)
	text := fmt.Sprintf("the workflow %s needs an answer to continue: %q; %s. Run %d waits: answer it with %s and the same token, "+
		"or call the tool from a client that supports elicitation.", t.Title, ask, why, out.Run.ID, hint)
	return &Result{Text: text, IsError: true, Structured: map[string]any{"execute_id": strconv.FormatInt(out.Run.ID, 10),
		"event_id": out.EventID, "workflow_id": strconv.FormatInt(t.id, 10), "question": ask, "options": in.Options}}
}

// nodeProgress reports a progress step for each finished node (a
// wf.EventSink; the engine calls it from the run's goroutines).
type nodeProgress struct {
	ctx    context.Context
	client Client
	mu     sync.Mutex // nodes of parallel branches finish at once; progress must grow
	done   float64
}

// Emit reports a finished node.
func (n *nodeProgress) Emit(e wf.Event) {
	if e.Kind != wf.EventNodeFinished || e.Record == nil || e.Record.Parent != "" {
		return
	}
	n.mu.Lock()
	defer n.mu.Unlock()
	n.done++
	label := e.Record.Title
	if label == "" {
		label = e.Record.NodeID
	}
	n.client.Progress(n.ctx, n.done, fmt.Sprintf("node %s (%s) %s", label, e.Record.Type, e.Record.Status))
}

// cancellable returns a context cancelled with workflowapp.ErrCancelled
// when ctx is (the client cancelled its call), so the run is stored as
// cancelled rather than failed; stop releases it.
func cancellable(ctx context.Context) (context.Context, func()) {
	run, cancel := context.WithCancelCause(context.WithoutCancel(ctx))
	unhook := context.AfterFunc(ctx, func() { cancel(workflowapp.ErrCancelled) })
	return run, func() { unhook(); cancel(nil) }
}
