// Package calculator is the built-in "calculator" plugin: arithmetic
// expressions evaluated by a small parser of its own, so that nothing a
// model writes can run as code.
package calculator

import (
	"context"
	_ "embed"
	"math"
	"strconv"

	"github.com/pergola-ai/pergola/plugins/internal/tool"
)

// The plugin's identity in the catalog.
const (
	ID          = "calculator"
	Name        = "Calculator"
	Description = "Exact arithmetic: evaluates expressions with + - * / % ^, parentheses and common functions."
)

//go:embed openapi.yaml
var manifest string

// Manifest returns the plugin's OpenAPI document.
func Manifest() []byte { return []byte(manifest) }

// Plugin evaluates expressions. It holds no state.
type Plugin struct{}

// New returns the plugin.
func New() *Plugin { return &Plugin{} }

// Ops returns the operations by operationId.
func (p *Plugin) Ops() tool.Ops { return tool.Ops{"evaluate": p.evaluate} }

// Invoke runs operationID. A bad expression fails with errs.Invalid naming
// "expression" and saying what is wrong where.
func (p *Plugin) Invoke(ctx context.Context, operationID string, args map[string]any) (string, error) {
	return p.Ops().Invoke(ctx, operationID, args)
}

func (p *Plugin) evaluate(_ context.Context, args map[string]any) (string, error) {
	expr, err := tool.String(args, "expression")
	if err != nil {
		return "", err
	}
	v, err := evaluate(expr)
	if err != nil {
		return "", err
	}
	return format(v), nil
}

// format writes v with up to 15 significant digits, so that 0.1+0.2 reads
// 0.3, and whole numbers without a decimal point or exponent.
func format(v float64) string {
	if v == 0 {
		return "0" // also turns -0 into 0
	}
	if v == math.Trunc(v) && math.Abs(v) < 1e15 {
		return strconv.FormatFloat(v, 'f', 0, 64)
	}
	return strconv.FormatFloat(v, 'g', 15, 64)
}
