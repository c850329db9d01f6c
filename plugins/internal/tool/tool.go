// Package tool holds what every built-in plugin needs to run its
// operations: dispatch by operationId and readers of the arguments a model
// sends, which fail with errs.Invalid naming the argument.
package tool

import (
	"context"
	"maps"
	"slices"
	"strings"

	"github.com/pergola-ai/pergola/domain/errs"
)

// Op runs one operation with the model's arguments and returns the text
// the model reads.
type Op func(ctx context.Context, args map[string]any) (string, error)

// Ops maps operationIds to their implementations.
type Ops map[string]Op

// Invoke runs the operation named operationID. An unknown operation fails
// with errs.Invalid naming "operation" and listing the known ones; a nil
// args map counts as no arguments.
func (o Ops) Invoke(ctx context.Context, operationID string, args map[string]any) (string, error) {
	op, ok := o[operationID]
	if !ok {
		return "", errs.Invalid("operation", "unknown operation %q; want one of %s",
			operationID, strings.Join(o.Names(), ", "))
	}
	if args == nil {
		args = map[string]any{}
	}
	return op(ctx, args)
}

// Names returns the operationIds, sorted.
func (o Ops) Names() []string { return slices.Sorted(maps.Keys(o)) }
