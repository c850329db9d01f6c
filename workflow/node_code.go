package workflow

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/pergola-ai/pergola/workflow/jsrun"
)

// codeKind runs JavaScript.
type codeKind struct{}

type codeConfig struct {
	Language string `json:"language,omitempty" jsonschema:"enum=javascript,enum=typescript,enum=python,description=javascript (the default)\\, typescript (its types are stripped\\, not checked) or python (def main(args) or async def main(args) with args.params\\, run by CPython in a sandbox when the server has python3 and bubblewrap)"`
	Code     string `json:"code" jsonschema:"required,description=defines function main({ params }) (may be async) returning an object with the declared outputs; params holds the node's inputs"`
}

func (codeKind) describe() NodeTypeInfo {
	return NodeTypeInfo{Type: "code", Title: "Code", Category: categoryLogic,
		Description: "Runs JavaScript in a sandbox: main({ params }) gets the inputs and returns an object with the " +
			"declared outputs (typed). Runs within a time limit (settings.timeout_ms, default the engine's code " +
			"timeout) and a memory limit; a bounded number run at once, the others wait their turn " +
			"(at most their time limit); the server runs them in worker processes, each with a hard memory limit; " +
			"console.log output is kept in the run history.",
		ConfigSchema: configSchema(&codeConfig{}), DeclaredOutputs: true}
}

// CodeRunner runs the JavaScript of code nodes: *jsrun.Runner in the
// engine's process (the default), or a pool of sandboxed worker processes
// (jsproc.Pool). Run returns jsrun's errors: the code's own,
// jsrun.ErrTimeout, jsrun.ErrMemory, jsrun.ErrBusy, or ctx's error.
type CodeRunner interface {
	Run(ctx context.Context, p *jsrun.Program, params map[string]any, timeout time.Duration) (jsrun.Result, error)
}

// newCodeRunner returns the in-process runner within the limits.
func newCodeRunner(l Limits) CodeRunner {
	return jsrun.NewRunner(jsrun.Limits{Timeout: l.CodeTimeout, Memory: l.CodeMemory, Concurrency: l.CodeParallel})
}

func (codeKind) check(c *checker, n *Node) *nodeSpec {
	var cfg codeConfig
	if !c.decodeConfig(n, &cfg) {
		return nil
	}
	compile := jsrun.Compile
	switch cfg.Language {
	case "", "javascript":
	case "typescript":
		compile = jsrun.CompileTypeScript
	case "python":
		return c.checkPython(n, cfg.Code)
	default:
		c.fail(nodeField(n, "config.language"), "must be javascript, typescript or python; got %q", cfg.Language)
		return nil
	}
	if cfg.Code == "" {
		c.fail(nodeField(n, "config.code"), "is required: a function main({ params })")
		return nil
	}
	prog, err := compile(cfg.Code)
	if err != nil {
		c.fail(nodeField(n, "config.code"), "%v", err)
		return nil
	}
	if len(n.Outputs) == 0 {
		c.fail(nodeField(n, "outputs"), "declare the outputs main returns")
	}
	// Not blocking: the JavaScript runner enforces the node's timeout
	// itself. It may run for long, though.
	return &nodeSpec{outputs: c.declaredOr(n, nil), long: true,
		runner: runFunc(func(ctx context.Context, x *nodeCtx, in map[string]any) (map[string]any, error) {
			res, err := x.rc.eng.code.Run(ctx, prog, in, x.pn.timeout)
			x.logs = res.Logs
			switch {
			case errors.Is(err, jsrun.ErrTimeout):
				return nil, permanent(fmt.Errorf("%w (%s)", err, x.pn.timeout))
			case errors.Is(err, jsrun.ErrMemory):
				return nil, permanent(fmt.Errorf("%w (%d MiB)", err, x.rc.eng.limits.CodeMemory>>20))
			case errors.Is(err, jsrun.ErrBusy):
				return nil, err // transient: the node's retry policy may try again
			case err != nil:
				return nil, permanent(err)
			}
			v := normalize(res.Value)
			out, ok := v.(map[string]any)
			if !ok && v != nil {
				return nil, permanent(fmt.Errorf("main returned %s, not an object with the outputs", describeType(v)))
			}
			return out, nil
		})}
}
