package chat

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"sync"

	"github.com/cloudwego/eino/compose"
	"github.com/cloudwego/eino/schema"

	"github.com/pergola-ai/pergola/domain/bot"
	"github.com/pergola-ai/pergola/domain/conversation"
	"github.com/pergola-ai/pergola/domain/errs"
	"github.com/pergola-ai/pergola/domain/variable"
)

// runSubAgent runs a sub-agent's published version on task as a chat of
// its own, in a new conversation linked to the caller's, for the same end
// user on the same connector, and returns its final answer (ok). The
// sub-agent's tool calls and results stream to the caller's client as
// they happen, as messages of the sub-bot. What the model must be told
// instead (a limit, a cycle, a bot not published, a failure) comes back
// with ok false.
func (s *Service) runSubAgent(ctx context.Context, t subAgentTool, task string) (string, bool, error) {
	parent := runFrom(ctx)
	if parent == nil {
		return "error: sub-agents run only inside a chat", false, nil
	}
	path := agentPath(ctx, parent.t.chat.BotID)
	if msg := s.checkPath(path, t.ref.BotID, t.botName); msg != "" {
		return msg, false, nil
	}
	b, v, msg, err := s.resolveSubBot(ctx, parent.t.chat.WorkspaceID, t)
	if msg != "" || err != nil {
		return msg, false, err
	}
	c, err := s.agentFor(ctx, b, &v.Config, v.Number)
	if err != nil {
		return "", false, err
	}
	sub, err := s.subTurn(ctx, parent, b, v, c, task)
	if err != nil {
		return "", false, err
	}
	sink := sub.sink.(*subSink)
	sctx := withAgentPath(ctx, append(path, b.ID))
	sctx = WithSubAgentCall(sctx, SubAgentCall{ChatID: parent.t.chat.ID, CallID: compose.GetToolCallID(ctx)})
	s.execute(sctx, sub)
	return sink.outcome(t.botName)
}

// checkPath refuses a call that would run a bot already running in this
// turn (a cycle) or nest deeper than the limit; "" allows it.
func (s *Service) checkPath(path []int64, botID int64, name string) string {
	for _, id := range path {
		if id == botID {
			return fmt.Sprintf("error: calling %s here would form a cycle (%s); answer without it", name, pathText(append(path, botID)))
		}
	}
	if len(path) > s.d.SubAgents.Depth {
		return fmt.Sprintf("error: sub-agents may call sub-agents only %d deep; answer without %s", s.d.SubAgents.Depth, name)
	}
	return ""
}

// resolveSubBot finds the sub-bot's published version; a bot gone, of
// another workspace or never published is a message for the model.
func (s *Service) resolveSubBot(ctx context.Context, workspaceID int64, t subAgentTool) (*bot.Bot, *bot.Version, string, error) {
	if s.d.Published == nil {
		return nil, nil, "error: sub-agents are not available on this server", nil
	}
	b, v, err := s.d.Published.ResolvePublished(ctx, t.ref.BotID, ConnectorAPI)
	switch {
	case errors.Is(err, errs.ErrNotFound) || (b != nil && b.WorkspaceID != workspaceID):
		return nil, nil, fmt.Sprintf("error: the sub-agent %s (bot %d) no longer exists; answer without it", t.botName, t.ref.BotID), nil
	case errors.Is(err, errs.ErrForbidden):
		return nil, nil, fmt.Sprintf("error: the sub-agent %s (bot %d) is not published to the API, so it cannot be called; "+
			"answer without it (its builder publishes it with connector 1024)", t.botName, t.ref.BotID), nil
	case err != nil:
		return nil, nil, "", err
	}
	return b, v, "", nil
}

// subTurn opens the sub-agent's conversation and stores its chat with the
// task as the question; the turn returned is ready to execute.
func (s *Service) subTurn(ctx context.Context, parent *runState, b *bot.Bot, v *bot.Version, c *compiled, task string) (*turn, error) {
	pc := parent.t.chat
	conv := &conversation.Conversation{WorkspaceID: b.WorkspaceID, BotID: b.ID, CreatorID: b.CreatorID,
		ConnectorID: pc.ConnectorID, ParentID: pc.ConversationID, MetaData: map[string]string{"parent_chat_id": idString(pc.ID)}}
	if s.d.Opener == nil {
		return nil, errors.New("chat: sub-agent conversations are not wired")
	}
	if err := s.d.Opener.CreateConversation(ctx, conv); err != nil {
		return nil, fmt.Errorf("chat: open the sub-agent's conversation: %w", err)
	}
	cfg := v.Config // a copy: no follow-up suggestions inside a turn
	cfg.SuggestReply.Enabled = false
	scope := variable.Scope{BotID: b.ID, ConnectorID: pc.ConnectorID, UserID: pc.UserID}
	values, err := s.d.Bots.VariableValues(ctx, scope, cfg.Variables)
	if err != nil {
		return nil, err
	}
	now := s.d.Now().UTC()
	chat := &conversation.Chat{ID: s.d.IDs.Next(), WorkspaceID: b.WorkspaceID, ConversationID: conv.ID, SectionID: conv.SectionID,
		BotID: b.ID, BotVersion: v.Number, UserID: pc.UserID, ConnectorID: pc.ConnectorID, Status: conversation.ChatInProgress,
		MetaData: map[string]string{"parent_chat_id": idString(pc.ID), "parent_bot_id": idString(pc.BotID)}, CreatedAt: now}
	t := &turn{chat: chat, cfg: &cfg, compiled: c, scope: scope, sink: &subSink{parent: parent.t.sink}}
	asked := t.newMessage(s, conversation.TypeQuestion, task)
	asked.Role = conversation.RoleUser
	t.input = []*schema.Message{schema.SystemMessage(systemPrompt(&cfg, values, now)), schema.UserMessage(task)}
	if err := s.store(ctx, chat, []*conversation.Message{asked}); err != nil {
		return nil, err
	}
	return t, nil
}

// subSink passes a sub-agent's tool calls and results on to the caller's
// stream, as messages of the sub-bot (their bot_id and chat_id are the
// sub-agent's), and keeps its answer and outcome for the caller.
type subSink struct {
	parent Sink
	mu     sync.Mutex
	answer string
	final  *conversation.Chat
}

// Send implements Sink.
func (k *subSink) Send(e Event) {
	switch {
	case e.Kind == EventMessageDone && e.Message != nil:
		switch e.Message.Type {
		case conversation.TypeFunctionCall, conversation.TypeToolResponse:
			k.parent.Send(e)
		case conversation.TypeAnswer:
			k.mu.Lock()
			k.answer = e.Message.Content
			k.mu.Unlock()
		}
	case e.Chat != nil && e.Kind != EventChatCreated && e.Kind != EventChatInProgress:
		k.mu.Lock()
		k.final = e.Chat
		k.mu.Unlock()
	}
}

// outcome is what the caller's model reads of the sub-agent's run: its
// last answer, or why there is none.
func (k *subSink) outcome(name string) (string, bool, error) {
	k.mu.Lock()
	defer k.mu.Unlock()
	switch {
	case k.final == nil:
		return "", false, errors.New("chat: the sub-agent's run ended without an outcome")
	case k.final.Status == conversation.ChatCanceled:
		return "", false, context.Canceled
	case k.final.Status == conversation.ChatFailed:
		msg := MsgAnswerFailed
		if k.final.LastError != nil {
			msg = k.final.LastError.Msg
		}
		return fmt.Sprintf("error: the sub-agent %s failed: %s", name, msg), false, nil
	case k.final.Status == conversation.ChatRequiresAction:
		return fmt.Sprintf("error: the sub-agent %s stopped for a client tool, which sub-agents cannot run", name), false, nil
	case k.answer == "":
		return fmt.Sprintf("(the sub-agent %s gave no answer)", name), true, nil
	}
	return k.answer, true, nil
}

// pathText writes a chain of bots as "bot 1 → bot 2 → bot 1".
func pathText(path []int64) string {
	out := ""
	for i, id := range path {
		if i > 0 {
			out += " → "
		}
		out += "bot " + strconv.FormatInt(id, 10)
	}
	return out
}
