package workflow

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"time"

	"github.com/pergola-ai/pergola/domain/errs"
	"github.com/pergola-ai/pergola/domain/identity"
	"github.com/pergola-ai/pergola/domain/workflow"
	wf "github.com/pergola-ai/pergola/workflow"
)

// ConnectorAPI is the connector of runs through the Coze API.
const ConnectorAPI = "1024"

// RunRequest asks for one run of a workflow.
type RunRequest struct {
	WorkflowID int64
	// Version picks a published version; 0 takes the latest. Draft runs
	// the draft instead (the console's test runs).
	Version int64
	Draft   bool
	Params  map[string]any
	// BotID names a bot of the workflow's workspace whose variables the
	// run reads and writes for UserID (default: the caller's user id).
	BotID int64
	// AppID names an app of the workflow's workspace whose variables the
	// run reads and assigns for UserID.
	AppID int64
	// ConversationID is the conversation the run is a turn of; the caller
	// checked it may use it.
	ConversationID int64
	UserID         string
	ConnectorID    string
	Mode           workflow.RunMode
	// Stream makes llm nodes stream into the end and message nodes.
	Stream bool
}

// Prepared is a run that passed every check and may start.
type Prepared struct {
	s        *Service
	w        *workflow.Workflow
	version  int64
	compiled *wf.Compiled
	req      RunRequest
	caller   identity.Principal
}

// Outcome is a finished run: the stored run and what the engine returned;
// Failure is set when the run failed (it is recorded as such). Interrupt
// is set when a question or input node stopped the run (status
// interrupted): it asks Interrupt.Question (with Interrupt.Options, or
// for Interrupt.Fields), and Resume with EventID answers it.
type Outcome struct {
	Run       *workflow.Run
	Result    *wf.RunResult
	Failure   *wf.RunError
	Interrupt *wf.Interrupt
	EventID   string
}

// RunFailed is the error of a synchronous run that failed; it names the
// run so its history can be read, and matches errs.ErrInvalid.
type RunFailed struct {
	RunID int64
	Err   *wf.RunError
}

func (e *RunFailed) Error() string {
	return fmt.Sprintf("workflow run %d failed: %v", e.RunID, e.Err)
}

// Unwrap returns the engine's error.
func (e *RunFailed) Unwrap() error { return e.Err }

// Prepare checks a run without starting it: access (as for Get), the
// version (a workflow never published is errs.ErrInvalid on
// workflow_id), the bot, and the parameters (errs.ErrInvalid naming
// parameters.<name>). It compiles the workflow, or takes it from the
// cache.
func (s *Service) Prepare(ctx context.Context, p identity.Principal, req RunRequest) (*Prepared, error) {
	w, err := s.reachForRun(ctx, p, req.WorkflowID, req.Draft)
	if err != nil {
		return nil, err
	}
	pr := &Prepared{s: s, w: w, req: req, caller: p}
	if pr.compiled, pr.version, err = s.compiled(ctx, w, req); err != nil {
		return nil, err
	}
	if err := s.checkBot(ctx, w, req.BotID); err != nil {
		return nil, err
	}
	if err := s.checkApp(ctx, w, req.AppID); err != nil {
		return nil, err
	}
	if err := pr.compiled.CheckParams(req.Params); err != nil {
		return nil, err
	}
	if pr.req.UserID == "" {
		pr.req.UserID = strconv.FormatInt(p.UserID, 10)
	}
	if pr.req.ConnectorID == "" {
		pr.req.ConnectorID = ConnectorAPI
	}
	return pr, nil
}

// ForConversation makes the prepared run a turn of conversation id, which
// the caller checked it may use.
func (pr *Prepared) ForConversation(id int64) { pr.req.ConversationID = id }

// compiled returns the compiled draft or version a request runs.
func (s *Service) compiled(ctx context.Context, w *workflow.Workflow, req RunRequest) (*wf.Compiled, int64, error) {
	opts := wf.CompileOptions{WorkspaceID: w.WorkspaceID, WorkflowID: w.ID}
	if req.Draft {
		c, err := s.d.Engine.CompileFunc(ctx, wf.DraftKey(w.ID, w.DraftRevision), func() (*wf.Definition, error) {
			return wf.Parse(w.Definition)
		}, opts)
		return c, 0, err
	}
	version := req.Version
	if version == 0 {
		version = w.PublishedVersion
	}
	if version == 0 {
		return nil, 0, errs.Invalid("workflow_id", "workflow %d is not published; publish it first", w.ID)
	}
	c, err := s.d.Engine.CompileFunc(ctx, wf.VersionKey(w.ID, version), func() (*wf.Definition, error) {
		v, err := s.d.Store.GetVersion(ctx, w.ID, version)
		if err != nil {
			return nil, err
		}
		return wf.Parse(v.Definition)
	}, opts)
	return c, version, err
}

// checkBot refuses a bot outside the workflow's workspace.
func (s *Service) checkBot(ctx context.Context, w *workflow.Workflow, botID int64) error {
	if botID == 0 {
		return nil
	}
	if s.d.Bots == nil {
		return errs.Invalid("bot_id", "bots are not available in this process")
	}
	ws, err := s.d.Bots.BotWorkspace(ctx, botID)
	if errors.Is(err, errs.ErrNotFound) || (err == nil && ws != w.WorkspaceID) {
		return errs.Invalid("bot_id", "bot %d is not a bot of the workflow's workspace", botID)
	}
	if err != nil {
		return fmt.Errorf("bot of the run: %w", err)
	}
	return nil
}

// Execute runs the prepared workflow to its end, or until a question or
// input node interrupts it (Outcome.Interrupt), sending events to events
// (nil for none), and records the run and its nodes. A run that fails is
// an Outcome with Failure set, not an error; errors are those of storage.
// The run goes on when ctx is cancelled only until its next node.
//
// A direct run (see direct) holds no lease: it is stored once, when it
// ends, or, when it may wait, when it starts, naming this process. Any
// other run is stored and leased to this process when it starts, and its
// lease is renewed while it runs.
func (pr *Prepared) Execute(ctx context.Context, events wf.EventSink) (*Outcome, error) {
	direct := pr.direct()
	if direct && !pr.compiled.MayWait() {
		return pr.executeDirect(ctx, events)
	}
	j := job{compiled: pr.compiled, caller: pr.caller, params: pr.req.Params, stream: pr.req.Stream, draft: pr.req.Draft,
		unleased: direct}
	var err error
	if direct {
		j.run = pr.newRun(workflow.RunRunning)
		if err = pr.s.d.Writer.StartRun(ctx, j.run, pr.s.d.Owner); err != nil {
			err = fmt.Errorf("start run of workflow %d: %w", pr.w.ID, err)
		}
	} else {
		j.run, err = pr.start(ctx, workflow.RunRunning, pr.s.d.Owner)
	}
	if err != nil {
		return nil, err
	}
	return pr.s.execute(ctx, j, events)
}

// newRun returns the run a prepared request starts, with a new id.
func (pr *Prepared) newRun(status workflow.RunStatus) *workflow.Run {
	req := pr.req
	input, _ := json.Marshal(req.Params)
	run := &workflow.Run{ID: pr.s.d.IDs.Next(), WorkflowID: pr.w.ID, WorkspaceID: pr.w.WorkspaceID, Version: pr.version,
		Mode: req.Mode, Status: status, CallerID: pr.caller.UserID, BotID: req.BotID, AppID: req.AppID,
		ConversationID: req.ConversationID, UserID: req.UserID, ConnectorID: req.ConnectorID, Input: string(input)}
	if req.Draft {
		run.DraftRevision = pr.w.DraftRevision
	}
	return run
}

// start stores the run and its state, leased to owner ("" for none).
func (pr *Prepared) start(ctx context.Context, status workflow.RunStatus, owner string) (*workflow.Run, error) {
	s := pr.s
	run := pr.newRun(status)
	if err := s.d.Runs.CreateRun(ctx, run); err != nil {
		return nil, fmt.Errorf("start run of workflow %d: %w", pr.w.ID, err)
	}
	if s.d.States == nil {
		return run, nil
	}
	caller, _ := json.Marshal(pr.caller)
	until := time.Now().Add(s.d.Lease)
	st := &RunState{RunID: run.ID, Caller: caller, LeaseOwner: owner, LeaseUntil: &until}
	if err := s.d.States.CreateRunState(ctx, st); err != nil {
		return nil, fmt.Errorf("start run of workflow %d: %w", pr.w.ID, err)
	}
	return run, nil
}

type callerKey struct{}

func withCaller(ctx context.Context, p identity.Principal) context.Context {
	return context.WithValue(ctx, callerKey{}, p)
}

// CallerFrom returns the caller whose request started the run a port call
// belongs to: adapters that act with the caller's rights (tables) read
// it.
func CallerFrom(ctx context.Context) (identity.Principal, bool) {
	p, ok := ctx.Value(callerKey{}).(identity.Principal)
	return p, ok
}

// finishTimeout bounds storing the outcome of a run.
const finishTimeout = 10 * time.Second

// Run runs a workflow synchronously (Coze's /v1/workflow/run). A run that
// fails returns the outcome and a *RunFailed; a run a question stopped
// returns the outcome with Interrupt set and no error; other errors are
// those of Prepare and of storage.
func (s *Service) Run(ctx context.Context, p identity.Principal, req RunRequest) (*Outcome, error) {
	pr, err := s.Prepare(ctx, p, req)
	if err != nil {
		return nil, err
	}
	out, err := pr.Execute(ctx, nil)
	if err != nil {
		return nil, err
	}
	if out.Failure != nil {
		return out, &RunFailed{RunID: out.Run.ID, Err: out.Failure}
	}
	return out, nil
}

// TestRun runs the draft of a workflow (the console's test run) and
// returns the outcome, failed or not, with every node's record.
func (s *Service) TestRun(ctx context.Context, p identity.Principal, req RunRequest) (*Outcome, error) {
	req.Draft, req.Mode = true, workflow.RunTest
	pr, err := s.Prepare(ctx, p, req)
	if err != nil {
		return nil, err
	}
	return pr.Execute(ctx, nil)
}

// checkApp checks that the app a run names is one of the workflow's
// workspace.
func (s *Service) checkApp(ctx context.Context, w *workflow.Workflow, appID int64) error {
	if appID == 0 {
		return nil
	}
	if s.d.Apps == nil {
		return errs.Invalid("app_id", "apps are not available in this process")
	}
	ws, err := s.d.Apps.AppWorkspace(ctx, appID)
	if errors.Is(err, errs.ErrNotFound) || (err == nil && ws != w.WorkspaceID) {
		return errs.Invalid("app_id", "app %d is not an app of the workflow's workspace", appID)
	}
	if err != nil {
		return fmt.Errorf("app of the run: %w", err)
	}
	return nil
}
