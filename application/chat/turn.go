package chat

import (
	"context"

	"github.com/cloudwego/eino/schema"

	"github.com/pergola-ai/pergola/domain/bot"
	"github.com/pergola-ai/pergola/domain/conversation"
	"github.com/pergola-ai/pergola/domain/variable"
)

// A chat turn, top to bottom. Every way into a turn loads what it needs,
// assembles the bot's agent and launches the run; the run itself is
// execute below.
//
//  1. load: Start (start.go, /v3/chat), Complete (complete.go,
//     /v1/chat/completions), StartForChannel (channel.go) and Submit
//     (submit.go, client tool outputs) check the request and read the bot,
//     the conversation and its history.
//  2. assemble: agentFor / agentForRequest (assemble.go) give the bot
//     version's compiled ReAct agent, built once and cached.
//  3. begin: begin and launchStored (start.go) build the model's input,
//     find a question left open (question.go) and store the chat while
//     launch starts the run.
//  4. execute: the run, on its own goroutine: enter, rounds (rounds.go),
//     handOver (handoff_step.go), finishAnswer (finish.go), persist (persist.go), leave.

// turn is one run of a bot: a new chat, or a chat continuing with the
// outputs of its client tools.
type turn struct {
	chat     *conversation.Chat
	cfg      *bot.Config
	compiled *compiled
	scope    variable.Scope
	input    []*schema.Message
	sink     Sink
	hidden   bool
	// ephemeral turns (the OpenAI-compatible endpoint) store only the
	// chat (status, tokens, times; no conversation), which usage counts:
	// the caller keeps the conversation.
	ephemeral bool
	// resume is the question of an earlier turn this turn answers.
	resume *resumeTurn
	// stored opens once the chat and its question are stored; nil when
	// they were before the run began.
	stored *storeGate
	// botID is the bot answering when the conversation was handed to
	// another bot than the chat's (handoff_step.go), and its version; 0:
	// the chat's bot.
	botID, botVersion int64
	// home is the conversation's own bot as the chat runs it, which a
	// transfer back returns to; nil: resolved like any target.
	home *handoff
}

// launch runs a turn on its own goroutine, detached from the request: a
// client that disconnects neither stops nor loses it. Cancel stops it.
func (s *Service) launch(ctx context.Context, t *turn) {
	rctx, cancel := context.WithCancel(context.WithoutCancel(ctx))
	s.mu.Lock()
	s.running[t.chat.ID] = cancel
	s.mu.Unlock()
	s.wg.Add(1)
	go func() {
		defer s.wg.Done()
		defer func() {
			s.mu.Lock()
			delete(s.running, t.chat.ID)
			s.mu.Unlock()
			cancel()
		}()
		s.execute(rctx, t)
	}()
}

// execute runs the agent to its end and records the outcome.
func (s *Service) execute(ctx context.Context, t *turn) {
	ctx, rs := s.enter(ctx, t)
	// The model and tool rounds: the end user's answer to an open
	// question, a no-recall reply, or the agent's rounds; a client tool
	// call or a tool's question ends them early.
	err := s.rounds(ctx, t, rs)
	// Handoff (handoff_step.go): when a transfer tool named another bot
	// during the rounds, the turn switches t to that bot's assembled agent
	// and runs its rounds, and the conversation remembers who answers.
	err = s.handOver(ctx, t, rs, err)
	if err == nil && len(rs.pending) == 0 {
		s.finishAnswer(ctx, t, rs)
	}
	s.persist(ctx, t, rs, err)
	s.leave(ctx, t, rs, err)
}

// enter starts the run of a turn: its run state, which the model
// callbacks and tools find in the context, its budget of model calls, the
// run scope tools read, and the turn-start step for hooks.
func (s *Service) enter(ctx context.Context, t *turn) (context.Context, *runState) {
	rs := &runState{s: s, t: t}
	ctx = context.WithValue(ctx, runKey{}, rs)
	ctx = withTurnBudget(ctx, s.d.SubAgents.TurnModelCalls) // a sub-agent's turn spends its caller's
	c := t.chat
	ctx = bot.WithRunScope(ctx, bot.RunScope{BotID: t.answering(), WorkspaceID: c.WorkspaceID, Version: t.answeringVersion(),
		ConnectorID: c.ConnectorID, UserID: c.UserID, ChatID: c.ID, ConversationID: c.ConversationID, AppID: appOf(t.cfg)})
	// The bot answering, as the scope and the configuration hooks get: in
	// a conversation handed to another bot, that bot.
	start := Step{Kind: StepTurnStart, ChatID: c.ID, BotID: t.answering(), ModelID: t.compiled.modelID}
	if t.resume != nil {
		start.Text = "resumed"
	}
	s.hook(ctx, start)
	return ctx, rs
}

// leave tells hooks how the turn ended.
func (s *Service) leave(ctx context.Context, t *turn, rs *runState, err error) {
	s.hook(ctx, Step{Kind: StepTurnEnd, ChatID: t.chat.ID, BotID: t.chat.BotID, Text: turnOutcome(rs, err), Err: err})
}

// turnOutcome names how a run of a turn ended, for hooks.
func turnOutcome(rs *runState, err error) string {
	rs.mu.Lock()
	defer rs.mu.Unlock()
	switch {
	case err != nil:
		return "failed"
	case len(rs.pending) > 0:
		return "requires_action"
	case rs.asked != nil:
		return "question"
	}
	return "completed"
}

// newMessage makes an assistant message of the turn with a fresh id.
func (t *turn) newMessage(s *Service, typ, content string) *conversation.Message {
	now := s.d.Now().UTC()
	return &conversation.Message{
		ID: s.d.IDs.Next(), WorkspaceID: t.chat.WorkspaceID, ConversationID: t.chat.ConversationID,
		SectionID: t.chat.SectionID, BotID: t.answering(), ChatID: t.chat.ID, Role: conversation.RoleAssistant,
		Type: typ, Content: content, ContentType: conversation.ContentText, MetaData: map[string]string{},
		Hidden: t.hidden, CreatedAt: now, UpdatedAt: now,
	}
}

// appOf is the app of a bot configuration; 0 for none.
func appOf(cfg *bot.Config) int64 {
	if cfg == nil {
		return 0
	}
	return cfg.AppID
}
