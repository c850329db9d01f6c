package main

import (
	"context"
	"errors"
	"time"

	"github.com/cloudwego/eino/components/model"
	"github.com/prometheus/client_golang/prometheus"

	"github.com/pergola-ai/pergola/backend/config"
	"github.com/pergola-ai/pergola/domain/bot"
	"github.com/pergola-ai/pergola/domain/llm"
	"github.com/pergola-ai/pergola/infra/fairshare"
	"github.com/pergola-ai/pergola/infra/metrics"
	wf "github.com/pergola-ai/pergola/workflow"
	"github.com/pergola-ai/pergola/workflow/jsrun"
	"github.com/pergola-ai/pergola/workflow/pyrun"
)

// shares are this process's pools that every workspace shares, each
// workspace holding at most PERGOLA_FAIR_SHARE of each: code nodes
// (JavaScript and Python apart), model calls (nil without
// PERGOLA_MODEL_PARALLEL), channel events and knowledge documents.
type shares struct {
	code, python, model, channel, knowledge *fairshare.Limiter
	modelWait                               time.Duration
}

func newShares(cfg config.Config, reg prometheus.Registerer) *shares {
	waits := metrics.NewShareWaits(reg)
	pool := func(name string, slots int) *fairshare.Limiter {
		return fairshare.New(fairshare.Config{Name: name, Slots: slots, Share: cfg.Shares.Share, Observe: waits.Observe})
	}
	s := &shares{code: pool("code", cfg.CodeWorkers()), python: pool("python", cfg.CodeWorkers()),
		channel: pool("channel", cfg.ChannelWorkers), knowledge: pool("knowledge", cfg.Knowledge.Workers),
		modelWait: cfg.Shares.ModelWait}
	if cfg.Shares.ModelParallel > 0 {
		s.model = pool("model", cfg.Shares.ModelParallel)
	}
	return s
}

// workspaceOf is the workspace whose work ctx carries: a workflow run's,
// or a chat's (0 when neither: such work shares one line).
func workspaceOf(ctx context.Context) int64 {
	if s, ok := wf.ScopeFrom(ctx); ok && s.WorkspaceID != 0 {
		return s.WorkspaceID
	}
	if r, ok := bot.RunScopeFrom(ctx); ok {
		return r.WorkspaceID
	}
	return 0
}

// sharedCode runs JavaScript code nodes within their workspace's share of
// the code workers; a node waits for a turn at most its time limit.
type sharedCode struct {
	inner wf.CodeRunner
	slots *fairshare.Limiter
}

func (c sharedCode) Run(ctx context.Context, p *jsrun.Program, params map[string]any, timeout time.Duration) (jsrun.Result, error) {
	leave, err := c.slots.Enter(ctx, workspaceOf(ctx), timeout)
	if err != nil {
		return jsrun.Result{}, codeBusy(err)
	}
	defer leave()
	return c.inner.Run(ctx, p, params, timeout)
}

// sharedPython is sharedCode for Python code nodes.
type sharedPython struct {
	wf.PythonRunner
	slots *fairshare.Limiter
}

func (c sharedPython) Run(ctx context.Context, code string, params map[string]any, timeout time.Duration) (pyrun.Result, error) {
	leave, err := c.slots.Enter(ctx, workspaceOf(ctx), timeout)
	if err != nil {
		return pyrun.Result{}, codeBusy(err)
	}
	defer leave()
	return c.PythonRunner.Run(ctx, code, params, timeout)
}

// codeRefusal is a code node that got no turn: it matches jsrun.ErrBusy
// (the node's retry policy may try again) and says whose share was full.
type codeRefusal struct{ err error }

func (e codeRefusal) Error() string {
	return "the code node did not start: " + e.err.Error()
}

func (e codeRefusal) Is(target error) bool { return target == jsrun.ErrBusy }
func (e codeRefusal) Unwrap() error        { return e.err }

func codeBusy(err error) error {
	var b *fairshare.BusyError
	if errors.As(err, &b) {
		return codeRefusal{err}
	}
	return err
}

// sharedModel wraps a chat model so its calls hold a turn of the model
// pool, when there is one.
func (s *shares) sharedModel(cm model.ToolCallingChatModel) model.ToolCallingChatModel {
	if s == nil || s.model == nil {
		return cm
	}
	return &fairshare.Model{Inner: cm, Slots: s.model, Tenant: workspaceOf, Wait: s.modelWait}
}

// chatModels is the chat runtime's model factory whose models share the
// model pool.
type chatModels struct {
	inner interface {
		ChatModel(ctx context.Context, m llm.Model) (model.ToolCallingChatModel, error)
		FormatOption(m llm.Model, f llm.ResponseFormat) (model.Option, bool)
	}
	shares *shares
}

func (c chatModels) ChatModel(ctx context.Context, m llm.Model) (model.ToolCallingChatModel, error) {
	cm, err := c.inner.ChatModel(ctx, m)
	if err != nil {
		return nil, err
	}
	return c.shares.sharedModel(cm), nil
}

func (c chatModels) FormatOption(m llm.Model, f llm.ResponseFormat) (model.Option, bool) {
	return c.inner.FormatOption(m, f)
}
