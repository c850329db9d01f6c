package workflow

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/pergola-ai/pergola/domain/errs"
	"github.com/pergola-ai/pergola/domain/identity"
	"github.com/pergola-ai/pergola/domain/workflow"
	wf "github.com/pergola-ai/pergola/workflow"
)

// ResumeRequest answers the interrupt of a run (Coze's stream_resume).
type ResumeRequest struct {
	WorkflowID int64
	// EventID is the interrupt's, "<execute_id>/<n>" as Outcome.EventID
	// and the Interrupt event give it.
	EventID string
	// Data is the answer: text or an option for a question, a JSON object
	// for an input node.
	Data string
	// InterruptType, when not 0, must be the interrupt's kind.
	InterruptType int
	// Stream makes llm nodes stream into the end and message nodes.
	Stream bool
}

// ExecuteIDOf returns the run an event id belongs to, or errs.ErrInvalid.
func ExecuteIDOf(eventID string) (int64, error) {
	head, _, ok := strings.Cut(eventID, "/")
	id, err := strconv.ParseInt(head, 10, 64)
	if !ok || err != nil || id <= 0 {
		return 0, errs.Invalid("event_id", "is not an event id of an Interrupt event: %q", eventID)
	}
	return id, nil
}

// Resume answers the pending interrupt of a run and runs it on, on this
// process whichever process started it, until it ends or asks again;
// events go to events (nil for none). The caller needs the access Run
// needs. It returns errs.ErrNotFound for an unknown run or one of another
// workflow, errs.ErrInvalid for an answer that does not fit the question
// (the interrupt stays pending), errs.ErrConflict for an event that is not
// the run's pending one (answered already, or the run was cancelled), and
// errs.ErrUnavailable when runs are not stored durably. Like Execute, a
// run that fails is an Outcome with Failure set.
func (s *Service) Resume(ctx context.Context, p identity.Principal, req ResumeRequest, events wf.EventSink) (*Outcome, error) {
	if s.d.States == nil {
		return nil, errs.New(errs.ErrUnavailable, "resuming runs is not available in this process")
	}
	runID, err := ExecuteIDOf(req.EventID)
	if err != nil {
		return nil, err
	}
	w, run, err := s.reachRun(ctx, p, req.WorkflowID, runID)
	if err != nil {
		return nil, err
	}
	st, err := s.d.States.GetRunState(ctx, runID)
	if err != nil {
		return nil, fmt.Errorf("resume run %d: %w", runID, err)
	}
	if st.EventID != req.EventID {
		return nil, errs.Conflict("event %s was answered already, or run %d no longer waits for it (%s)", req.EventID, runID, run.Status)
	}
	var in wf.Interrupt
	if err := json.Unmarshal(st.Interrupt, &in); err != nil {
		return nil, fmt.Errorf("resume run %d: the stored interrupt: %w", runID, err)
	}
	if req.InterruptType != 0 && req.InterruptType != int(in.Kind) {
		return nil, errs.Invalid("interrupt_type", "must be %d for this event; got %d", in.Kind, req.InterruptType)
	}
	if err := in.CheckAnswer(req.Data); err != nil {
		return nil, err
	}
	j, err := s.jobOf(ctx, w, run, st)
	if err != nil {
		return nil, err
	}
	cp, err := wf.UnmarshalCheckpoint(st.Checkpoint)
	if err != nil {
		return nil, fmt.Errorf("resume run %d: the stored checkpoint: %w", runID, err)
	}
	if _, err := s.d.States.TakeInterrupt(ctx, runID, req.EventID, s.d.Owner, time.Now().Add(s.d.Lease)); err != nil {
		return nil, err
	}
	j.resume, j.stream = cp.Answer(&in, req.Data), req.Stream
	return s.execute(ctx, j, events)
}

// reachRun loads a run of a workflow the caller may reach.
func (s *Service) reachRun(ctx context.Context, p identity.Principal, workflowID, runID int64) (*workflow.Workflow, *workflow.Run, error) {
	w, _, err := s.reach(ctx, p, workflowID)
	if err != nil {
		return nil, nil, err
	}
	run, err := s.d.Runs.GetRun(ctx, runID)
	if errors.Is(err, errs.ErrNotFound) || (err == nil && run.WorkflowID != w.ID) {
		return nil, nil, errs.NotFound("run", strconv.FormatInt(runID, 10))
	}
	if err != nil {
		return nil, nil, fmt.Errorf("load run %d: %w", runID, err)
	}
	return w, run, nil
}

// jobOf rebuilds what a stored run needs to run on: its compiled version
// (or draft), parameters and caller, and numbers its next node records
// after those stored.
func (s *Service) jobOf(ctx context.Context, w *workflow.Workflow, run *workflow.Run, st *RunState) (job, error) {
	draft := run.Version == 0
	c, _, err := s.compiled(ctx, w, RunRequest{Version: run.Version, Draft: draft})
	if err != nil {
		return job{}, fmt.Errorf("run %d: %w", run.ID, err)
	}
	j := job{run: run, compiled: c, draft: draft}
	if err := json.Unmarshal(st.Caller, &j.caller); err != nil {
		return job{}, fmt.Errorf("run %d: the stored caller: %w", run.ID, err)
	}
	if j.params, err = decodeParams(run.Input); err != nil {
		return job{}, fmt.Errorf("run %d: the stored parameters: %w", run.ID, err)
	}
	if s.d.History != nil {
		recs, err := s.d.Runs.ListNodeRuns(ctx, run.ID)
		if err != nil {
			return job{}, err
		}
		var last int64
		if len(recs) > 0 {
			last = recs[len(recs)-1].Seq
		}
		s.d.History.Continue(run.ID, last)
	}
	return j, nil
}

// decodeParams reads stored parameters, numbers as the engine's.
func decodeParams(input string) (map[string]any, error) {
	if input == "" || input == "null" {
		return map[string]any{}, nil
	}
	dec := json.NewDecoder(strings.NewReader(input))
	dec.UseNumber()
	var params map[string]any
	if err := dec.Decode(&params); err != nil {
		return nil, err
	}
	return params, nil
}
