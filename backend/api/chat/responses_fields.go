package chat

import (
	"errors"
	"strconv"
	"strings"

	"github.com/pergola-ai/pergola/domain/errs"
)

// inputAt remembers which input item each message, function output and
// transcript entry came from, so that an error found in them names the
// item the client sent (input[i]) rather than Pergola's own request.
type inputAt struct {
	items    bool  // input was a list of items (not a string)
	messages []int // in.messages[k] came from input[messages[k]]
	outputs  []int
	lines    []int // in.transcript[k]; function calls merged into one entry keep the first
}

// record notes that the entries input item i added came from it.
func (a *inputAt) record(in *rsInput, i int) {
	pad := func(list []int, n int) []int {
		for len(list) < n {
			list = append(list, i)
		}
		return list
	}
	a.messages = pad(a.messages, len(in.messages))
	a.outputs = pad(a.outputs, len(in.outputs))
	a.lines = pad(a.lines, len(in.transcript))
}

// rename turns an error about list[k] of Pergola's request (prefix
// "additional_messages", "tool_outputs" or "messages") into one about
// the input item it came from; other errors are returned as they are.
func (a inputAt) rename(err error, prefix string, origins []int) error {
	var fe *errs.FieldError
	if !errors.As(err, &fe) || !strings.HasPrefix(fe.Field, prefix) {
		return err
	}
	field, rest := "input", strings.TrimPrefix(fe.Field, prefix)
	if k, tail, ok := leadingIndex(rest); ok && k < len(origins) {
		switch {
		case origins[k] < 0:
			field = "instructions"
		case a.items:
			field = "input[" + strconv.Itoa(origins[k]) + "]" + itemField(tail)
		}
	}
	return errs.Invalid(field, "%s", fe.Reason)
}

// leadingIndex reads "[k]rest".
func leadingIndex(s string) (int, string, bool) {
	end := strings.IndexByte(s, ']')
	if !strings.HasPrefix(s, "[") || end < 0 {
		return 0, "", false
	}
	k, err := strconv.Atoi(s[1:end])
	return k, s[end+1:], err == nil && k >= 0
}

// itemField is the input item's name for a field of a chat message.
func itemField(tail string) string {
	switch {
	case tail == ".tool_call_id":
		return ".call_id"
	case strings.HasPrefix(tail, ".tool_calls"):
		return "" // a function_call item, merged into an assistant message
	}
	return tail
}
