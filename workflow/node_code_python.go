package workflow

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/pergola-ai/pergola/workflow/pyrun"
)

// PythonRunner runs the Python of code nodes: *pyrun.Runner, the host's
// python3 in a bubblewrap sandbox. Check compiles code (a
// *pyrun.CodeError names a syntax error's line).
type PythonRunner interface {
	Check(ctx context.Context, code string) error
	Run(ctx context.Context, code string, params map[string]any, timeout time.Duration) (pyrun.Result, error)
}

// checkPython checks a Python code node: the runner must be there, and
// the code must compile.
func (c *checker) checkPython(n *Node, code string) *nodeSpec {
	py := c.eng.ports.Python
	if py == nil {
		c.fail(nodeField(n, "config.language"), "%v", pyrun.ErrUnavailable)
		return nil
	}
	if code == "" {
		c.fail(nodeField(n, "config.code"), "is required: def main(args) returning a dict of the outputs")
		return nil
	}
	if err := py.Check(c.ctx, code); err != nil {
		c.fail(nodeField(n, "config.code"), "%v", err)
		return nil
	}
	if len(n.Outputs) == 0 {
		c.fail(nodeField(n, "outputs"), "declare the outputs main returns")
	}
	return &nodeSpec{outputs: c.declaredOr(n, nil), long: true,
		runner: runFunc(func(ctx context.Context, x *nodeCtx, in map[string]any) (map[string]any, error) {
			res, err := py.Run(ctx, code, in, x.pn.timeout)
			x.logs = res.Logs
			if err != nil {
				if errors.Is(err, pyrun.ErrTimeout) {
					err = fmt.Errorf("%w (%s)", err, x.pn.timeout)
				}
				return nil, permanent(err)
			}
			v := normalize(res.Value)
			out, ok := v.(map[string]any)
			if !ok && v != nil {
				return nil, permanent(fmt.Errorf("main returned %s, not a dict with the outputs", describeType(v)))
			}
			return out, nil
		})}
}
