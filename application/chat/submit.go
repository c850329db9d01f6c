package chat

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/cloudwego/eino/schema"

	"github.com/pergola-ai/pergola/domain/conversation"
	"github.com/pergola-ai/pergola/domain/errs"
	"github.com/pergola-ai/pergola/domain/identity"
	"github.com/pergola-ai/pergola/domain/variable"
)

// Submit continues a chat that waits for client tool outputs: the outputs
// join its transcript and the same chat runs on. A chat that is not
// waiting, or a second submit racing the first, fails with ErrConflict.
func (s *Service) Submit(ctx context.Context, p identity.Principal, conversationID, chatID int64, outputs []conversation.ToolOutput, sink Sink) (*conversation.Chat, error) {
	return s.SubmitWithTools(ctx, p, conversationID, chatID, outputs, RequestTools{}, sink)
}

// SubmitWithTools is Submit for an OpenAI Responses request, whose function
// tools are offered again for the rest of the turn.
func (s *Service) SubmitWithTools(ctx context.Context, p identity.Principal, conversationID, chatID int64, outputs []conversation.ToolOutput, tools RequestTools, sink Sink) (*conversation.Chat, error) {
	if sink == nil {
		sink = discard{}
	}
	if len(outputs) == 0 {
		return nil, errs.Invalid("tool_outputs", "must hold one output per tool call the chat asked for")
	}
	if err := s.checkOutputs(outputs); err != nil {
		return nil, err
	}
	chat, err := s.load(ctx, p, conversationID, chatID)
	if err != nil {
		return nil, err
	}
	b, cfg, version, err := s.d.Bots.ResolveForChat(ctx, p, chat.BotID, chat.BotVersion == 0)
	if err != nil {
		return nil, err
	}
	if b, cfg, version, err = s.handedBot(ctx, chat, b, cfg, version); err != nil {
		return nil, err
	}
	c, err := s.agentForRequest(ctx, b, cfg, version, tools)
	if err != nil {
		return nil, err
	}
	var asked []conversation.ToolCall
	var st state
	chat, err = s.d.Chats.UpdateChat(ctx, conversationID, chatID, func(ch *conversation.Chat) error {
		if ch.RequiredAction != nil {
			asked = append([]conversation.ToolCall{}, ch.RequiredAction.ToolCalls...)
		}
		if err := ch.StartSubmit(outputs); err != nil {
			return err
		}
		if err := json.Unmarshal(ch.State, &st); err != nil || len(st.Transcript) == 0 {
			return fmt.Errorf("chat %d: its saved state cannot be read: %v", ch.ID, err)
		}
		ch.State = nil
		return nil
	})
	if err != nil {
		return nil, err
	}
	t := &turn{chat: chat, cfg: cfg, compiled: c, sink: sink, botID: b.ID, botVersion: version,
		scope: variable.Scope{BotID: b.ID, ConnectorID: chat.ConnectorID, UserID: chat.UserID}}
	t.hidden = s.chatIsHidden(ctx, chat)
	byID := map[string]string{}
	for _, o := range outputs {
		byID[o.ToolCallID] = o.Output
	}
	t.input = st.Transcript
	var stored []*conversation.Message
	for _, call := range asked {
		t.input = append(t.input, schema.ToolMessage(byID[call.ID], call.ID, schema.WithToolName(call.Name)))
		stored = append(stored, t.newMessage(s, conversation.TypeToolOutput, byID[call.ID]))
	}
	if err := s.d.Messages.CreateMessages(ctx, stored...); err != nil {
		return nil, fmt.Errorf("chat: store tool outputs: %w", err)
	}
	progress := *chat
	sink.Send(Event{Kind: EventChatInProgress, Chat: &progress})
	s.launch(ctx, t)
	return chat, nil
}

// chatIsHidden tells whether a chat's messages stay out of the history
// (auto_save_history=false), from how its question was stored.
func (s *Service) chatIsHidden(ctx context.Context, chat *conversation.Chat) bool {
	msgs, err := s.d.Messages.ListChatMessages(ctx, chat.ConversationID, chat.ID)
	return err == nil && len(msgs) > 0 && msgs[0].Hidden
}

// load reads a chat the caller may see; an unknown chat and a chat of an
// unreachable conversation both answer ErrNotFound.
func (s *Service) load(ctx context.Context, p identity.Principal, conversationID, chatID int64) (*conversation.Chat, error) {
	if err := p.RequireScope(identity.ScopeChat); err != nil {
		return nil, err
	}
	chat, err := s.d.Chats.GetChat(ctx, conversationID, chatID)
	if err != nil {
		return nil, err
	}
	if _, err := s.d.Conversations.ResolveConversation(ctx, p, conversationID, chat.BotID, ""); err != nil {
		return nil, err
	}
	return chat, nil
}
