// Package wftool lets bots use workflows as tools: it checks the
// workflows a bot binds (pinning each to a published version when the bot
// is published) and gives the agent one tool per bound workflow.
//
// A tool runs its workflow through the workflow service, so every call is
// in the workflow's run history (run mode "bot"). A workflow whose end
// node returns variables answers the model with their JSON; one that
// returns text answers for the bot: its text is streamed to the chat as it
// is produced and the agent stops. Message nodes show as intermediate
// messages of the chat.
package wftool

import (
	"context"
	"log/slog"

	workflowapp "github.com/pergola-ai/pergola/application/workflow"
	"github.com/pergola-ai/pergola/domain/bot"
	"github.com/pergola-ai/pergola/domain/identity"
	"github.com/pergola-ai/pergola/domain/workflow"
	wf "github.com/pergola-ai/pergola/workflow"
)

// RunModeBot is the run mode of workflows a bot runs as tools.
const RunModeBot workflow.RunMode = "bot"

// Workflows reads workflows and their published versions; the workflow
// store implements it. Both fail with errs.ErrNotFound.
type Workflows interface {
	GetWorkflow(ctx context.Context, id int64) (*workflow.Workflow, error)
	GetVersion(ctx context.Context, workflowID, number int64) (*workflow.Version, error)
}

// Runner prepares workflow runs and resumes those a question stopped;
// *workflowapp.Service implements it.
type Runner interface {
	Prepare(ctx context.Context, p identity.Principal, req workflowapp.RunRequest) (*workflowapp.Prepared, error)
	Resume(ctx context.Context, p identity.Principal, req workflowapp.ResumeRequest, events wf.EventSink) (*workflowapp.Outcome, error)
}

// Deps is what the service is built from.
type Deps struct {
	Workflows Workflows
	// Runner runs the tools' workflows; nil until it is attached (the
	// workflow service is built after the bot service that binds).
	Runner Runner
	Log    *slog.Logger
}

// Service binds workflows to bots and builds their tools.
type Service struct{ d Deps }

// New returns a Service over d.
func New(d Deps) *Service {
	if d.Log == nil {
		d.Log = slog.New(slog.DiscardHandler)
	}
	return &Service{d: d}
}

// Attach sets the runner of the tools, once the workflow service exists.
// It must be called before the first chat runs.
func (s *Service) Attach(r Runner) { s.d.Runner = r }

// botCaller is who a bot's workflow runs act as: the bot's creator, with
// only the rights the run needs (workflows, and tables for table nodes)
// and only in the bot's workspace. A creator who left the workspace can no
// longer run its workflows: the tool then answers that the workflow is
// unavailable.
func botCaller(b *bot.Bot) identity.Principal {
	return identity.Principal{UserID: b.CreatorID, Scopes: []string{identity.ScopeWorkflow, identity.ScopeTable},
		Workspaces: []int64{b.WorkspaceID}}
}
