package chat

import (
	"context"
	"slices"
	"strconv"
	"strings"

	"github.com/cloudwego/eino/schema"

	"github.com/pergola-ai/pergola/domain/conversation"
	"github.com/pergola-ai/pergola/domain/errs"
	"github.com/pergola-ai/pergola/domain/identity"
	"github.com/pergola-ai/pergola/domain/variable"
)

// ConnectorOpenAI is the channel of the OpenAI-compatible endpoint.
const ConnectorOpenAI = "openai"

// CompletionMessage is one message of an OpenAI-style request.
type CompletionMessage struct {
	Role       string // system, user, assistant or tool
	Content    string
	ToolCalls  []conversation.ToolCall // an assistant's calls
	ToolCallID string                  // a tool message's call
}

// CompletionRequest runs a published bot over messages the caller keeps,
// as OpenAI's chat completions do: only the chat (status, tokens, times)
// is stored, for usage; no conversation or message.
type CompletionRequest struct {
	BotID    int64
	User     string // the end user, for keyword memory; defaults to the caller
	Messages []CompletionMessage
	Tools    RequestTools // the request's function tools and tool_choice
}

// Complete runs a published bot over the request's messages, sending
// events to sink. Client tools end the run with requires_action; the
// caller answers with tool messages in its next request. It returns once
// the chat is stored, as Start does.
func (s *Service) Complete(ctx context.Context, p identity.Principal, req CompletionRequest, sink Sink) error {
	if err := p.RequireScope(identity.ScopeChat); err != nil {
		return err
	}
	if err := checkCompletion(req.Messages); err != nil {
		return err
	}
	if err := s.checkCompletionTexts(req.Messages); err != nil {
		return err
	}
	if err := s.checkKeptTexts(req.Messages); err != nil {
		return err
	}
	b, cfg, version, err := s.d.Bots.ResolveForChat(ctx, p, req.BotID, false)
	if err != nil {
		return err
	}
	c, err := s.agentForRequest(ctx, b, cfg, version, req.Tools)
	if err != nil {
		return err
	}
	user := req.User
	if user == "" {
		user = "user-" + strconv.FormatInt(p.UserID, 10)
	} else if err := checkUserID("user", user); err != nil {
		return err
	}
	scope := variable.Scope{BotID: b.ID, ConnectorID: ConnectorOpenAI, UserID: user}
	values, err := s.d.Bots.VariableValues(ctx, scope, cfg.Variables)
	if err != nil {
		return err
	}
	now := s.d.Now().UTC()
	chat := &conversation.Chat{ID: s.d.IDs.Next(), WorkspaceID: b.WorkspaceID, BotID: b.ID, BotVersion: version,
		UserID: user, ConnectorID: ConnectorOpenAI, Status: conversation.ChatInProgress, CreatedAt: now, MetaData: map[string]string{}}
	t := &turn{chat: chat, cfg: cfg, compiled: c, scope: scope, sink: sink, ephemeral: true,
		home: &handoff{bot: b, cfg: cfg, version: version}}
	t.input = append([]*schema.Message{schema.SystemMessage(systemPrompt(cfg, values, now))}, completionInput(req.Messages)...)
	t.input = fitHistory(t.input, s.d.Limits.HistoryChars)
	return s.launchStored(ctx, t, nil)
}

// checkCompletion refuses what OpenAI refuses about a conversation, so
// the caller learns what to fix instead of the provider's 400 failing the
// run: every tool message answers a call of the assistant message right
// before the tool messages, every call is answered before the next other
// message, and no call id is used twice.
func checkCompletion(msgs []CompletionMessage) error {
	if len(msgs) == 0 {
		return errs.Invalid("messages", "must hold at least one message")
	}
	seen := map[string]bool{}
	open := map[string]bool{} // calls of the latest assistant message not answered yet
	for i, m := range msgs {
		at := "messages[" + strconv.Itoa(i) + "]"
		if m.Role == "tool" {
			if !open[m.ToolCallID] {
				return errs.Invalid(at+".tool_call_id", "%q answers no tool call of the assistant message before it; "+
					"tool messages must follow the assistant message with their tool_calls", m.ToolCallID)
			}
			delete(open, m.ToolCallID)
			continue
		}
		if len(open) > 0 {
			return errs.Invalid(at, "the tool calls %s of the assistant message before must each be answered by a tool message first", ids(open))
		}
		clear(open)
		if err := checkCompletionMessage(at, m, seen, open); err != nil {
			return err
		}
	}
	if len(open) > 0 {
		return errs.Invalid("messages", "the tool calls %s of the last assistant message must each be answered by a tool message", ids(open))
	}
	if last := msgs[len(msgs)-1].Role; last != "user" && last != "tool" {
		return errs.Invalid("messages", "must end with a user or tool message")
	}
	return nil
}

// checkCompletionMessage checks a message other than a tool's and notes
// the calls of an assistant message as open.
func checkCompletionMessage(at string, m CompletionMessage, seen, open map[string]bool) error {
	switch m.Role {
	case "system", "user":
		if m.Content == "" {
			return errs.Invalid(at+".content", "is empty: a %s message needs text (only text parts are read)", m.Role)
		}
		return nil
	case "assistant":
		for j, tc := range m.ToolCalls {
			if tc.ID == "" || tc.Name == "" {
				return errs.Invalid(at+".tool_calls["+strconv.Itoa(j)+"]", "needs an id and a function name")
			}
			if seen[tc.ID] {
				return errs.Invalid(at+".tool_calls["+strconv.Itoa(j)+"].id", "%q is used by another tool call; ids must be unique", tc.ID)
			}
			seen[tc.ID], open[tc.ID] = true, true
		}
		return nil
	}
	return errs.Invalid(at+".role", "must be system, developer, user, assistant or tool; got %q", m.Role)
}

func ids(set map[string]bool) string {
	out := make([]string, 0, len(set))
	for id := range set {
		out = append(out, strconv.Quote(id))
	}
	slices.Sort(out)
	return strings.Join(out, ", ")
}

func completionInput(msgs []CompletionMessage) []*schema.Message {
	out := make([]*schema.Message, 0, len(msgs))
	for _, m := range msgs {
		switch m.Role {
		case "system":
			out = append(out, schema.SystemMessage(m.Content))
		case "user":
			out = append(out, schema.UserMessage(m.Content))
		case "assistant":
			if m.Content == "" && len(m.ToolCalls) == 0 {
				continue // an empty answer: models refuse a message with neither text nor calls
			}
			var calls []schema.ToolCall
			for _, tc := range m.ToolCalls {
				calls = append(calls, schema.ToolCall{ID: tc.ID, Type: "function",
					Function: schema.FunctionCall{Name: tc.Name, Arguments: tc.Arguments}})
			}
			out = append(out, schema.AssistantMessage(m.Content, calls))
		case "tool":
			out = append(out, schema.ToolMessage(m.Content, m.ToolCallID))
		}
	}
	return out
}
