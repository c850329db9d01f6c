package mcpserver

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/pergola-ai/pergola/domain/errs"
	"github.com/pergola-ai/pergola/domain/identity"
)

// Call runs the caller's tool called name with the arguments raw (a JSON
// object). It returns ErrUnknownTool for a name the caller has no tool
// of. What the caller or the model can act on (wrong arguments, a bot or
// workflow that failed, a question this client cannot answer) is a Result
// with IsError set; errors are failures of Pergola itself.
func (s *Service) Call(ctx context.Context, p identity.Principal, name string, raw json.RawMessage, c Client) (*Result, error) {
	t, err := s.find(ctx, p, name)
	if err != nil {
		return nil, err
	}
	args, bad := decodeArgs(raw)
	if bad != nil {
		return bad, nil
	}
	if r := checkArgs(t.InputSchema, args); r != nil {
		return r, nil
	}
	var res *Result
	switch t.kind {
	case botTool:
		res, err = s.chat(ctx, p, t, args, c)
	default:
		res, err = s.runWorkflow(ctx, p, t, args, c)
	}
	return refused(res, err)
}

// checkArgs refuses arguments the tool does not take and missing required
// ones, naming them; the run checks the values' types.
func checkArgs(schema map[string]any, args map[string]any) *Result {
	props, _ := schema["properties"].(map[string]any)
	for k := range args {
		if _, ok := props[k]; !ok {
			return toolError(fmt.Sprintf("argument %q: this tool takes no such argument; it takes %s", k, strings.Join(sortedKeys(props), ", ")))
		}
	}
	required, _ := schema["required"].([]any)
	for _, r := range required {
		if v, ok := args[r.(string)]; !ok || v == nil {
			return toolError(fmt.Sprintf("argument %q: is required", r))
		}
	}
	return nil
}

func sortedKeys(m map[string]any) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	if len(keys) == 0 {
		return []string{"no arguments"}
	}
	return keys
}

// refused turns what the caller can fix (errs.ErrInvalid and kin) into a
// tool error that says so; Pergola's own failures stay errors.
func refused(res *Result, err error) (*Result, error) {
	if err == nil {
		return res, nil
	}
	var fe *errs.FieldError
	switch {
	case errors.As(err, &fe):
		return toolError(fmt.Sprintf("argument %q: %s", argumentOf(fe.Field), fe.Reason)), nil
	case errors.Is(err, errs.ErrInvalid), errors.Is(err, errs.ErrNotFound), errors.Is(err, errs.ErrForbidden),
		errors.Is(err, errs.ErrConflict), errors.Is(err, errs.ErrRateLimited), errors.Is(err, errs.ErrUnavailable):
		return toolError(err.Error()), nil
	}
	return nil, err
}

// argumentOf names a field of the run's request as the tool's argument:
// the workflow's parameters are the tool's arguments.
func argumentOf(field string) string {
	return strings.TrimPrefix(field, "parameters.")
}
