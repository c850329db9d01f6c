package pyrun

import (
	"context"
	"time"
)

// Result is a finished run: what main returned and what the code printed.
type Result struct {
	Value any
	Logs  string
}

// Run runs code's main(args) (or async main) with args.params = params.
// It returns the code's exception as a *CodeError, ErrTimeout,
// ErrOutput, or ctx's error.
func (r *Runner) Run(ctx context.Context, code string, params map[string]any, timeout time.Duration) (Result, error) {
	if timeout <= 0 || timeout > r.lim.Timeout {
		timeout = r.lim.Timeout
	}
	a, err := r.do(ctx, map[string]any{"op": "run", "code": code, "params": params}, timeout)
	if err != nil {
		return Result{}, err
	}
	if a.Error != "" {
		return Result{Logs: a.Logs}, &CodeError{Message: a.Error, Line: a.Line}
	}
	return Result{Value: a.Result, Logs: a.Logs}, nil
}

// Check compiles code in a sandbox: a *CodeError names a syntax error's
// line.
func (r *Runner) Check(ctx context.Context, code string) error {
	a, err := r.do(ctx, map[string]any{"op": "check", "code": code}, r.lim.Timeout)
	if err != nil {
		return err
	}
	if a.Error != "" {
		return &CodeError{Message: a.Error, Line: a.Line}
	}
	return nil
}
