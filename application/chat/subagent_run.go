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

// subRun is one run of a sub-agent: the bot, the conversation it runs
// in (nil: a new one, linked to the caller's) and the message it gets
// (the task, or the end user's answer to its question).
type subRun struct {
	ref     bot.SubAgent
	botName string
	conv    *conversation.Conversation
	text    string
}

// subOutcome is what a sub-agent's run gives its caller: its answer
// (answered), or a message for the model, or a question for the end user.
type subOutcome struct {
	text     string
	answered bool
	question *subQuestion
}

// runSub runs a sub-agent's published version as a chat of its own, for
// the same end user on the same connector, and returns its outcome. The
// sub-agent's tool calls and results stream to the caller's client as
// they happen, as messages of the sub-bot. What the model must be told
// instead (a limit, a cycle, a bot not published, a failure) comes back
// as the outcome's text.
func (s *Service) runSub(ctx context.Context, r subRun) (subOutcome, error) {
	parent := runFrom(ctx)
	if parent == nil {
		return subOutcome{text: "error: sub-agents run only inside a chat"}, nil
	}
	path := agentPath(ctx, parent.t.answering()) // after a handoff, the bot answering
	if msg := s.checkPath(path, r.ref.BotID, r.botName); msg != "" {
		return subOutcome{text: msg}, nil
	}
	b, v, msg, err := s.resolveSubBot(ctx, parent.t.chat.WorkspaceID, r.ref.BotID, r.botName)
	if msg != "" || err != nil {
		return subOutcome{text: msg}, err
	}
	c, err := s.agentFor(ctx, b, &v.Config, v.Number)
	if err != nil {
		return subOutcome{}, err
	}
	sub, err := s.subTurn(ctx, parent, b, v, c, r)
	if err != nil {
		return subOutcome{}, err
	}
	sctx := withAgentPath(ctx, append(path, b.ID))
	sctx = WithSubAgentCall(sctx, SubAgentCall{ChatID: parent.t.chat.ID, CallID: compose.GetToolCallID(ctx)})
	s.execute(sctx, sub)
	out, err := sub.sink.(*subSink).outcome(r.botName)
	if out.question != nil {
		out.question.fill(r, sub.chat)
	}
	return out, err
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
func (s *Service) resolveSubBot(ctx context.Context, workspaceID, id int64, name string) (*bot.Bot, *bot.Version, string, error) {
	if s.d.Published == nil {
		return nil, nil, "error: sub-agents are not available on this server", nil
	}
	b, v, err := s.d.Published.ResolvePublished(ctx, id, ConnectorAPI)
	switch {
	case errors.Is(err, errs.ErrNotFound) || (b != nil && b.WorkspaceID != workspaceID):
		return nil, nil, fmt.Sprintf("error: the sub-agent %s (bot %d) no longer exists; answer without it", name, id), nil
	case errors.Is(err, errs.ErrForbidden):
		return nil, nil, fmt.Sprintf("error: the sub-agent %s (bot %d) is not published to the API, so it cannot be called; "+
			"answer without it (its builder publishes it with connector 1024)", name, id), nil
	case err != nil:
		return nil, nil, "", err
	}
	return b, v, "", nil
}

// subTurn opens the sub-agent's conversation (or continues r.conv, whose
// open question r.text may answer) and stores its chat with r.text as the
// question; the turn returned is ready to execute.
func (s *Service) subTurn(ctx context.Context, parent *runState, b *bot.Bot, v *bot.Version, c *compiled, r subRun) (*turn, error) {
	pc := parent.t.chat
	conv, err := s.subConversation(ctx, pc, b, r.conv)
	if err != nil {
		return nil, err
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
	if r.conv != nil {
		if t.resume, err = s.openQuestion(ctx, conv.ID, b, c); err != nil {
			return nil, fmt.Errorf("chat: the sub-agent's open question: %w", err)
		}
		if t.resume != nil {
			t.resume.answer = r.text
		}
	}
	asked := t.newMessage(s, conversation.TypeQuestion, r.text)
	asked.Role = conversation.RoleUser
	t.input = []*schema.Message{schema.SystemMessage(systemPrompt(&cfg, values, now)), schema.UserMessage(r.text)}
	if err := s.store(ctx, chat, []*conversation.Message{asked}); err != nil {
		return nil, err
	}
	return t, nil
}

// subConversation opens a sub-agent's conversation, linked to the
// caller's, or returns the one it continues.
func (s *Service) subConversation(ctx context.Context, pc *conversation.Chat, b *bot.Bot, cont *conversation.Conversation) (*conversation.Conversation, error) {
	if cont != nil {
		return cont, nil
	}
	conv := &conversation.Conversation{WorkspaceID: b.WorkspaceID, BotID: b.ID, CreatorID: b.CreatorID,
		ConnectorID: pc.ConnectorID, ParentID: pc.ConversationID, MetaData: map[string]string{"parent_chat_id": idString(pc.ID)}}
	if s.d.Opener == nil {
		return nil, errors.New("chat: sub-agent conversations are not wired")
	}
	if err := s.d.Opener.CreateConversation(ctx, conv); err != nil {
		return nil, fmt.Errorf("chat: open the sub-agent's conversation: %w", err)
	}
	return conv, nil
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
// last answer, a question it left open for the end user, or why there is
// no answer.
func (k *subSink) outcome(name string) (subOutcome, error) {
	k.mu.Lock()
	defer k.mu.Unlock()
	f := k.final
	switch {
	case f == nil:
		return subOutcome{}, errors.New("chat: the sub-agent's run ended without an outcome")
	case f.Status == conversation.ChatCanceled:
		return subOutcome{}, context.Canceled
	case f.Status == conversation.ChatFailed:
		msg := MsgAnswerFailed
		if f.LastError != nil {
			msg = f.LastError.Msg
		}
		return subOutcome{text: fmt.Sprintf("error: the sub-agent %s failed: %s", name, msg)}, nil
	case f.Status == conversation.ChatRequiresAction:
		return subOutcome{text: fmt.Sprintf("error: the sub-agent %s stopped for a client tool, which sub-agents cannot run", name)}, nil
	case asksEndUser(f):
		return subOutcome{text: k.answer, question: &subQuestion{}}, nil
	case k.answer == "":
		return subOutcome{text: fmt.Sprintf("(the sub-agent %s gave no answer)", name), answered: true}, nil
	}
	return subOutcome{text: k.answer, answered: true}, nil
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
