package pyrun

import (
	"context"
	"crypto/sha256"
	"sync"
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
// line. Answers are remembered (a bounded number), so that validating
// the same code again, as each compile of a workflow does, starts no
// sandbox.
func (r *Runner) Check(ctx context.Context, code string) error {
	key := sha256.Sum256([]byte(code))
	if err, ok := r.checked.get(key); ok {
		return err
	}
	a, err := r.do(ctx, map[string]any{"op": "check", "code": code}, r.lim.Timeout)
	if err != nil {
		return err // not remembered: the sandbox failed, not the code
	}
	if a.Error != "" {
		err = &CodeError{Message: a.Error, Line: a.Line}
	}
	r.checked.put(key, err)
	return err
}

// checks remembers the answers of Check.
type checks struct {
	mu  sync.Mutex
	max int
	m   map[[32]byte]error
}

func (c *checks) get(key [32]byte) (error, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	err, ok := c.m[key]
	return err, ok
}

func (c *checks) put(key [32]byte, err error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if len(c.m) >= c.max {
		clear(c.m) // bounded: forgetting costs one more sandbox per code
	}
	c.m[key] = err
}
