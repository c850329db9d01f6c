package fakellm

import (
	"fmt"
	"slices"
	"strings"
)

// The server refuses what OpenAI refuses about a request's messages, with
// the same 400 and error shape, so a client that builds an invalid
// conversation fails against the fake as it would against a real model.
// The messages follow OpenAI's own wording where it has one (its typo
// "preceeding" included, so logs read the same).

// validRoles are the message roles OpenAI accepts.
var validRoles = map[string]bool{"system": true, "developer": true, "user": true, "assistant": true, "tool": true, "function": true}

// checkMessages returns the reason OpenAI would refuse msgs, or "".
func checkMessages(msgs []wireMessage) string {
	if len(msgs) == 0 {
		return "[] is too short - 'messages'"
	}
	for i, m := range msgs {
		if why := checkMessage(i, m); why != "" {
			return why
		}
	}
	return checkToolSequence(msgs)
}

// checkMessage checks one message on its own: its role and the fields the
// role requires.
func checkMessage(i int, m wireMessage) string {
	at := fmt.Sprintf("messages.[%d]", i)
	if !validRoles[m.Role] {
		return fmt.Sprintf("Invalid value: '%s'. Supported values are: 'system', 'assistant', 'user', 'function', 'tool', and 'developer'. (%s.role)", m.Role, at)
	}
	hasContent := len(m.Content) > 0 && string(m.Content) != "null"
	switch {
	case m.Role == "assistant" && !hasContent && len(m.ToolCalls) == 0:
		return fmt.Sprintf("Invalid value for '%s.content': expected a string, got null.", at)
	case m.Role != "assistant" && !hasContent:
		return fmt.Sprintf("Missing required parameter: '%s.content'.", at)
	case m.Role == "tool" && m.ToolCallID == "":
		return fmt.Sprintf("Missing required parameter: '%s.tool_call_id'.", at)
	case m.Role != "assistant" && len(m.ToolCalls) > 0:
		return fmt.Sprintf("Unrecognized request argument supplied: '%s.tool_calls' (only assistant messages carry tool calls).", at)
	}
	for j, tc := range m.ToolCalls {
		if tc.ID == "" {
			return fmt.Sprintf("Missing required parameter: '%s.tool_calls.[%d].id'.", at, j)
		}
		if tc.Function.Name == "" {
			return fmt.Sprintf("Missing required parameter: '%s.tool_calls.[%d].function.name'.", at, j)
		}
	}
	return ""
}

// checkToolSequence checks that every tool message answers a call of the
// assistant message right before the run of tool messages it belongs to,
// that every such call is answered before any other message, and that no
// call id is used twice.
func checkToolSequence(msgs []wireMessage) string {
	seen := map[string]bool{} // every call id of the conversation
	open := map[string]bool{} // calls of the latest assistant message not answered yet
	var openAt int            // the index of that assistant message
	var answering bool        // the messages since it are all tool messages
	for i, m := range msgs {
		if m.Role == "tool" {
			if !answering || !open[m.ToolCallID] {
				return fmt.Sprintf("Invalid parameter: messages with role 'tool' must be a response to a preceeding message with 'tool_calls'. (messages.[%d] answers %q)", i, m.ToolCallID)
			}
			delete(open, m.ToolCallID)
			continue
		}
		if len(open) > 0 {
			return unanswered(openAt, open)
		}
		answering = false
		for _, tc := range m.ToolCalls {
			if seen[tc.ID] {
				return fmt.Sprintf("Duplicate value for 'tool_call_id' of %s in messages.[%d]. Please ensure that each 'tool_call_id' is unique.", tc.ID, i)
			}
			seen[tc.ID], open[tc.ID] = true, true
			answering, openAt = true, i
		}
	}
	if len(open) > 0 {
		return unanswered(openAt, open)
	}
	return ""
}

func unanswered(at int, open map[string]bool) string {
	ids := make([]string, 0, len(open))
	for id := range open {
		ids = append(ids, id)
	}
	slices.Sort(ids)
	return fmt.Sprintf("An assistant message with 'tool_calls' must be followed by tool messages responding to each 'tool_call_id'. The following tool_call_ids did not have response messages: %s (messages.[%d])",
		strings.Join(ids, ", "), at)
}
