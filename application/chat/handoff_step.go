package chat

import (
	"context"

	"github.com/cloudwego/eino/schema"

	"github.com/pergola-ai/pergola/domain/bot"
	"github.com/pergola-ai/pergola/domain/variable"
)

// ActiveBots records the bot a conversation was handed to;
// sqlstore.ConversationStore implements it.
type ActiveBots interface {
	// SetActiveBot records botID (0: the conversation's own bot) as the
	// bot answering the conversation's next turns.
	SetActiveBot(ctx context.Context, workspaceID, conversationID, botID int64) error
}

// handOver follows the transfers the rounds asked for: the turn switches
// to the target's published version, which answers over the
// conversation's messages and the transfer's note, and may hand on in
// its own rounds (up to Deps.MaxHandoffs per turn). A turn that ended
// otherwise (an error, a client tool call) is left as it is. When the
// turn was handed over, the conversation remembers who answers next.
func (s *Service) handOver(ctx context.Context, t *turn, rs *runState, err error) error {
	for err == nil {
		h := rs.takeHandoff()
		if h == nil {
			break
		}
		var next context.Context
		if next, err = s.switchTo(ctx, t, h); err == nil {
			err = s.rounds(next, t, rs)
		}
	}
	s.rememberActive(ctx, t, rs)
	return err
}

// takeHandoff returns the transfer the rounds asked for, if the turn
// does not wait for client tools, and clears it.
func (rs *runState) takeHandoff() *handoff {
	rs.mu.Lock()
	defer rs.mu.Unlock()
	h := rs.handoff
	rs.handoff = nil
	if len(rs.pending) > 0 {
		return nil // the caller's tools come first; the transfer is dropped
	}
	return h
}

// switchTo makes the target of h the bot of the rest of the turn: its
// agent, its end user's keyword memory, its prompt with the transfer's
// note, and the run scope its tools read from the returned context.
func (s *Service) switchTo(ctx context.Context, t *turn, h *handoff) (context.Context, error) {
	cfg := h.cfg
	c, err := s.agentFor(ctx, h.bot, cfg, h.version)
	if err != nil {
		return ctx, err
	}
	scope := variable.Scope{BotID: h.bot.ID, ConnectorID: t.chat.ConnectorID, UserID: t.chat.UserID}
	values, err := s.d.Bots.VariableValues(ctx, scope, cfg.Variables)
	if err != nil {
		return ctx, err
	}
	prompt := systemPrompt(cfg, values, s.d.Now()) + handoffNote(t.cfg.Name, h.note)
	t.input = handoffInput(t.input, prompt)
	t.cfg, t.compiled, t.scope, t.botID, t.botVersion, t.resume = cfg, c, scope, h.bot.ID, h.version, nil
	ch := t.chat
	return bot.WithRunScope(ctx, bot.RunScope{BotID: h.bot.ID, WorkspaceID: ch.WorkspaceID, Version: h.version,
		ConnectorID: ch.ConnectorID, UserID: ch.UserID, ChatID: ch.ID, ConversationID: ch.ConversationID, AppID: appOf(cfg)}), nil
}

// handoffNote tells the target who handed the conversation over and why.
func handoffNote(from, note string) string {
	out := "\n\n# Handoff\nThe bot " + quoteName(from) + " handed this conversation to you. Answer the user's last message yourself."
	if note != "" {
		out += "\nIts note: " + note
	}
	return out
}

// handoffInput is what the target sees: its own prompt, then the
// conversation's questions and answers of the input so far. The previous
// bot's tool calls and results are left out: the target has other tools.
func handoffInput(prev []*schema.Message, prompt string) []*schema.Message {
	out := []*schema.Message{schema.SystemMessage(prompt)}
	for _, m := range prev {
		switch {
		case m.Role == schema.User:
			out = append(out, m)
		case m.Role == schema.Assistant && len(m.ToolCalls) == 0 && m.Content != "":
			out = append(out, m)
		}
	}
	return out
}

// rememberActive records the bot answering at the end of a handed-over
// turn as the conversation's active bot (0 when the conversation's own
// bot has it back). Ephemeral turns have no conversation to record it on.
func (s *Service) rememberActive(ctx context.Context, t *turn, rs *runState) {
	rs.mu.Lock()
	handed := rs.handoffs > 0
	rs.mu.Unlock()
	if !handed || t.ephemeral || s.d.ActiveBots == nil || t.chat.ConversationID == 0 {
		return
	}
	if err := t.stored.wait(ctx); err != nil {
		return // the chat was never stored: the turn did not happen
	}
	active := t.answering()
	if active == t.chat.BotID {
		active = 0
	}
	ch := t.chat
	if err := s.d.ActiveBots.SetActiveBot(context.WithoutCancel(ctx), ch.WorkspaceID, ch.ConversationID, active); err != nil {
		s.d.Log.WarnContext(ctx, "chat: record the bot the conversation was handed to", "chat_id", ch.ID, "bot_id", active, "err", err)
	}
}

// answering is the bot writing the turn's answers now: the chat's bot,
// or the bot the conversation was handed to.
func (t *turn) answering() int64 {
	if t.botID != 0 {
		return t.botID
	}
	return t.chat.BotID
}

// answeringVersion is the version of the bot answering now.
func (t *turn) answeringVersion() int64 {
	if t.botID != 0 && t.botID != t.chat.BotID {
		return t.botVersion
	}
	return t.chat.BotVersion
}

func quoteName(name string) string {
	if name == "" {
		return "before you"
	}
	return "\"" + name + "\""
}
