package workflow

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"

	"github.com/pergola-ai/pergola/domain/errs"
	"github.com/pergola-ai/pergola/domain/identity"
	"github.com/pergola-ai/pergola/domain/workflow"
	wf "github.com/pergola-ai/pergola/workflow"
)

// Chatflow turns that answer a question. As in Coze Studio, a chatflow run
// that stops at a question or input node leaves its conversation waiting:
// the conversation's next message is the answer, and the run resumes
// with it instead of a new run starting.

// ConversationRuns finds the runs of a conversation;
// *sqlstore.WorkflowRunStore implements it.
type ConversationRuns interface {
	// WaitingRun returns the newest run of a workflow, started in mode as
	// a turn of a conversation, that waits for an answer; nil when none.
	WaitingRun(ctx context.Context, workflowID, conversationID int64, mode workflow.RunMode) (*workflow.Run, error)
}

// Waiting is a run that waits in a conversation for the next message.
type Waiting struct {
	Run       *workflow.Run
	EventID   string
	Interrupt *wf.Interrupt
}

// Outcome is the waiting run as a turn that stopped at its question: what
// a turn whose answer did not fit shows again.
func (w *Waiting) Outcome() *Outcome {
	return &Outcome{Run: w.Run, Interrupt: w.Interrupt, EventID: w.EventID}
}

// WaitingTurn returns the run of a workflow, started in mode as a turn of
// the conversation, that waits for the conversation's next message as its
// answer; nil when none (or when runs are not stored durably). The caller
// checked it may use the conversation; the workflow is checked as Run
// checks it.
func (s *Service) WaitingTurn(ctx context.Context, p identity.Principal, workflowID, conversationID int64, mode workflow.RunMode) (*Waiting, error) {
	finder, ok := s.d.Runs.(ConversationRuns)
	if !ok || s.d.States == nil || conversationID == 0 {
		return nil, nil
	}
	if _, _, err := s.reach(ctx, p, workflowID); err != nil {
		return nil, err
	}
	run, err := finder.WaitingRun(ctx, workflowID, conversationID, mode)
	if run == nil || err != nil {
		return nil, err
	}
	st, err := s.d.States.GetRunState(ctx, run.ID)
	if errors.Is(err, errs.ErrNotFound) || err == nil && st.EventID == "" {
		return nil, nil // answered a moment ago, or cancelled
	}
	if err != nil {
		return nil, fmt.Errorf("the waiting run %d: %w", run.ID, err)
	}
	in := &wf.Interrupt{}
	if err := json.Unmarshal(st.Interrupt, in); err != nil {
		return nil, fmt.Errorf("the waiting run %d: the stored interrupt: %w", run.ID, err)
	}
	return &Waiting{Run: run, EventID: st.EventID, Interrupt: in}, nil
}

// AnswerTurn resumes a waiting run with the text of the conversation's
// next message as the answer, streaming llm nodes as a chatflow turn
// does; events go to events. The errors are Resume's: errs.ErrInvalid for
// an answer that does not fit (the run still waits), errs.ErrConflict for
// an answer given at the same moment by another message.
func (s *Service) AnswerTurn(ctx context.Context, p identity.Principal, w *Waiting, text string, events wf.EventSink) (*Outcome, error) {
	req := ResumeRequest{WorkflowID: w.Run.WorkflowID, EventID: w.EventID, Data: ChatAnswer(w.Interrupt, text), Stream: true}
	return s.Resume(ctx, p, req, events)
}

// FitsAnswer reports whether a message's text answers the waiting run's
// question: one of the options of an option question that takes no
// other answer, the fields of an input node.
func (w *Waiting) FitsAnswer(text string) bool {
	return w.Interrupt.CheckAnswer(ChatAnswer(w.Interrupt, text)) == nil
}
