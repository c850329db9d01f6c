package chat

import (
	"context"
	"errors"
	"fmt"
	"sync/atomic"

	"github.com/cloudwego/eino/components"
	"github.com/cloudwego/eino/components/model"
	"github.com/cloudwego/eino/schema"
)

// SubAgentCall names the tool call of a caller's chat that a sub-agent's
// turn runs for.
type SubAgentCall struct {
	ChatID int64
	CallID string
}

type subParentKey struct{}

// WithSubAgentCall returns ctx for the turn of a sub-agent that runs for
// call.
func WithSubAgentCall(ctx context.Context, call SubAgentCall) context.Context {
	return context.WithValue(ctx, subParentKey{}, call)
}

// SubAgentCallFrom returns the call a sub-agent's turn runs for, from the
// context of its steps; ok is false for a turn of its own. Tracing nests
// the sub-agent's spans under that call's span with it.
func SubAgentCallFrom(ctx context.Context) (SubAgentCall, bool) {
	c, ok := ctx.Value(subParentKey{}).(SubAgentCall)
	return c, ok
}

type agentPathKey struct{}

// agentPath is the chain of bots running in this turn, from the bot the
// end user talks to down to root, the bot whose tool is being called.
func agentPath(ctx context.Context, root int64) []int64 {
	if p, ok := ctx.Value(agentPathKey{}).([]int64); ok {
		return append([]int64{}, p...)
	}
	return []int64{root}
}

func withAgentPath(ctx context.Context, path []int64) context.Context {
	return context.WithValue(ctx, agentPathKey{}, path)
}

// turnBudget counts the model calls of one turn across its agents.
type turnBudget struct {
	max  int
	used atomic.Int64
}

type budgetKey struct{}

// withTurnBudget gives a turn its budget of model calls, unless ctx is
// a sub-agent's, which spends its caller's.
func withTurnBudget(ctx context.Context, max int) context.Context {
	if _, ok := ctx.Value(budgetKey{}).(*turnBudget); ok {
		return ctx
	}
	return context.WithValue(ctx, budgetKey{}, &turnBudget{max: max})
}

// BudgetError ends a turn that made more model calls than its budget
// (PERGOLA_TURN_MODEL_CALLS), counted across the bot and its sub-agents.
type BudgetError struct{ Max int }

func (e *BudgetError) Error() string {
	return fmt.Sprintf("This turn reached its limit of %d model calls across the bot and its sub-agents, and was stopped.", e.Max)
}

// spend takes one model call from ctx's budget.
func spend(ctx context.Context) error {
	b, ok := ctx.Value(budgetKey{}).(*turnBudget)
	if ok && b.used.Add(1) > int64(b.max) {
		return &BudgetError{Max: b.max}
	}
	return nil
}

// budgetMessage is what an end user reads when a turn ran out of model
// calls.
func budgetMessage(err error) (string, bool) {
	var be *BudgetError
	if errors.As(err, &be) {
		return be.Error(), true
	}
	return "", false
}

// budgeted counts every call of a chat model against the turn's budget.
// It reports the wrapped model's callback support and type, so eino adds
// no second set of callbacks around it.
type budgeted struct {
	inner model.ToolCallingChatModel
}

func (m budgeted) Generate(ctx context.Context, in []*schema.Message, opts ...model.Option) (*schema.Message, error) {
	if err := spend(ctx); err != nil {
		return nil, err
	}
	return m.inner.Generate(ctx, in, opts...)
}

func (m budgeted) Stream(ctx context.Context, in []*schema.Message, opts ...model.Option) (*schema.StreamReader[*schema.Message], error) {
	if err := spend(ctx); err != nil {
		return nil, err
	}
	return m.inner.Stream(ctx, in, opts...)
}

func (m budgeted) WithTools(tools []*schema.ToolInfo) (model.ToolCallingChatModel, error) {
	inner, err := m.inner.WithTools(tools)
	if err != nil {
		return nil, err
	}
	return budgeted{inner: inner}, nil
}

func (m budgeted) IsCallbacksEnabled() bool {
	c, ok := m.inner.(components.Checker)
	return ok && c.IsCallbacksEnabled()
}

func (m budgeted) GetType() string {
	t, _ := components.GetType(m.inner)
	return t
}
