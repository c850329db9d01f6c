package chat

import (
	"context"
	"strconv"

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
// as OpenAI's chat completions do: nothing is stored.
type CompletionRequest struct {
	BotID    int64
	User     string // the end user, for keyword memory; defaults to the caller
	Messages []CompletionMessage
}

// Complete runs a published bot over the request's messages, sending
// events to sink. Client tools end the run with requires_action; the
// caller answers with tool messages in its next request.
func (s *Service) Complete(ctx context.Context, p identity.Principal, req CompletionRequest, sink Sink) error {
	if err := p.RequireScope(identity.ScopeChat); err != nil {
		return err
	}
	if err := checkCompletion(req.Messages); err != nil {
		return err
	}
	b, cfg, version, err := s.d.Bots.ResolveForChat(ctx, p, req.BotID, false)
	if err != nil {
		return err
	}
	c, err := s.agentFor(ctx, b, cfg, version)
	if err != nil {
		return err
	}
	user := req.User
	if user == "" {
		user = "user-" + strconv.FormatInt(p.UserID, 10)
	}
	scope := variable.Scope{BotID: b.ID, ConnectorID: ConnectorOpenAI, UserID: user}
	values, err := s.d.Bots.VariableValues(ctx, scope, cfg.Variables)
	if err != nil {
		return err
	}
	now := s.d.Now().UTC()
	chat := &conversation.Chat{ID: s.d.IDs.Next(), WorkspaceID: b.WorkspaceID, BotID: b.ID, BotVersion: version,
		UserID: user, ConnectorID: ConnectorOpenAI, Status: conversation.ChatInProgress, CreatedAt: now, MetaData: map[string]string{}}
	t := &turn{chat: chat, cfg: cfg, compiled: c, scope: scope, sink: sink, ephemeral: true}
	t.input = append([]*schema.Message{schema.SystemMessage(systemPrompt(cfg, values, now))}, completionInput(req.Messages)...)
	s.announce(sink, chat)
	s.launch(ctx, t)
	return nil
}

func checkCompletion(msgs []CompletionMessage) error {
	if len(msgs) == 0 {
		return errs.Invalid("messages", "must hold at least one message")
	}
	calls := map[string]bool{}
	for i, m := range msgs {
		at := "messages[" + strconv.Itoa(i) + "]"
		switch m.Role {
		case "system", "user":
		case "assistant":
			for _, tc := range m.ToolCalls {
				calls[tc.ID] = true
			}
		case "tool":
			if !calls[m.ToolCallID] {
				return errs.Invalid(at+".tool_call_id", "%q answers no tool call of an earlier assistant message", m.ToolCallID)
			}
		default:
			return errs.Invalid(at+".role", "must be system, user, assistant or tool; got %q", m.Role)
		}
	}
	if last := msgs[len(msgs)-1].Role; last != "user" && last != "tool" {
		return errs.Invalid("messages", "must end with a user or tool message")
	}
	return nil
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
