package chat

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"slices"
	"time"

	"github.com/cloudwego/eino/compose"
	"github.com/cloudwego/eino/flow/agent"
	"github.com/cloudwego/eino/flow/agent/react"
	"github.com/cloudwego/eino/schema"

	"github.com/pergola-ai/pergola/domain/bot"
	"github.com/pergola-ai/pergola/domain/conversation"
	"github.com/pergola-ai/pergola/domain/variable"
)

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
}

// storeGate is opened when a turn's chat and question are stored, which
// happens while the model's first call runs: the outcome is recorded only
// after it, and tools run only after it, since a tool may read the
// conversation (a workflow's message nodes list it) and must find the
// question there.
type storeGate struct {
	done chan struct{}
	err  error
}

func newStoreGate() *storeGate { return &storeGate{done: make(chan struct{})} }

// open records the store's outcome and releases the waiters.
func (g *storeGate) open(err error) {
	g.err = err
	close(g.done)
}

// wait returns the store's error once it is known, or ctx's error; a nil
// gate is open.
func (g *storeGate) wait(ctx context.Context) error {
	if g == nil {
		return nil
	}
	select {
	case <-g.done:
		return g.err
	case <-ctx.Done():
		return ctx.Err()
	}
}

// newMessage makes an assistant message of the turn with a fresh id.
func (t *turn) newMessage(s *Service, typ, content string) *conversation.Message {
	now := s.d.Now().UTC()
	return &conversation.Message{
		ID: s.d.IDs.Next(), WorkspaceID: t.chat.WorkspaceID, ConversationID: t.chat.ConversationID,
		SectionID: t.chat.SectionID, BotID: t.chat.BotID, ChatID: t.chat.ID, Role: conversation.RoleAssistant,
		Type: typ, Content: content, ContentType: conversation.ContentText, MetaData: map[string]string{},
		Hidden: t.hidden, CreatedAt: now, UpdatedAt: now,
	}
}

// state is what a chat keeps in Chat.State to be continued: waiting for
// client tool outputs, or having asked the end user a tool's question.
type state struct {
	Transcript []*schema.Message `json:"transcript"`
	Asked      *askedTool        `json:"asked,omitempty"`
}

// execute runs the agent to its end and records the outcome.
func (s *Service) execute(ctx context.Context, t *turn) {
	rs := &runState{s: s, t: t}
	ctx = context.WithValue(ctx, runKey{}, rs)
	c := t.chat
	ctx = bot.WithRunScope(ctx, bot.RunScope{BotID: c.BotID, WorkspaceID: c.WorkspaceID, Version: c.BotVersion,
		ConnectorID: c.ConnectorID, UserID: c.UserID, ChatID: c.ID, ConversationID: c.ConversationID, AppID: appOf(t.cfg)})
	start := Step{Kind: StepTurnStart, ChatID: c.ID, BotID: c.BotID, ModelID: t.compiled.modelID}
	if t.resume != nil {
		start.Text = "resumed"
	}
	s.hook(ctx, start)
	var err error
	if t.resume != nil {
		err = s.resumeTool(ctx, t, rs)
	} else if !s.autoRecall(ctx, t, rs) {
		err = s.runAgent(ctx, t, rs)
	}
	if errors.Is(err, compose.ErrExceedMaxSteps) && len(rs.pending) == 0 {
		err = s.lastCall(ctx, t, rs)
	}
	if err == nil && len(rs.pending) == 0 {
		s.answerFinished(t, rs)
		if t.cfg.SuggestReply.Enabled {
			s.followUps(ctx, t, rs)
		}
	}
	s.finish(ctx, t, rs, err)
	s.hook(ctx, Step{Kind: StepTurnEnd, ChatID: c.ID, BotID: c.BotID, Text: turnOutcome(rs, err), Err: err})
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

func (s *Service) runAgent(ctx context.Context, t *turn, rs *runState) error {
	opts := []agent.AgentOption{
		agent.WithComposeOptions(compose.WithCallbacks(rs.handler())),
		react.WithChatModelOptions(slices.Concat(t.compiled.options, t.compiled.agentOptions, t.compiled.format)...),
	}
	sr, err := t.compiled.agent.Stream(ctx, t.input, opts...)
	if err != nil {
		return err
	}
	defer sr.Close()
	for {
		if _, err := sr.Recv(); errors.Is(err, io.EOF) {
			return nil
		} else if err != nil {
			return err
		}
	}
}

// finishedVerbose is the verbose message Coze sends when an answer is
// complete; clients that wait for it before showing follow-ups find it.
const finishedVerbose = `{"msg_type":"generate_answer_finish","data":"{\"finish_reason\":0,\"fin_data\":\"\"}","from_unit":""}`

func (s *Service) answerFinished(t *turn, rs *runState) {
	m := t.newMessage(s, conversation.TypeVerbose, finishedVerbose)
	rs.mu.Lock()
	rs.out = append(rs.out, m)
	rs.mu.Unlock()
	t.sink.Send(Event{Kind: EventMessageDone, Message: m})
}

// lastCall gives the user an answer when the tool rounds ran out: one more
// model call over what the agent knows, without tools.
func (s *Service) lastCall(ctx context.Context, t *turn, rs *runState) error {
	rs.mu.Lock()
	in := append([]*schema.Message{}, rs.lastInput...)
	rs.mu.Unlock()
	in = append(in, schema.SystemMessage("You cannot call tools any more in this turn. Answer the user now with what you know."))
	rs.startModel(ctx, in)
	sr, err := t.compiled.model.Stream(ctx, in, slices.Concat(t.compiled.options, t.compiled.format)...)
	if err != nil {
		rs.failModel()
		return err
	}
	var chunks []*schema.Message
	for {
		m, err := sr.Recv()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			sr.Close()
			rs.failModel()
			return err
		}
		chunks = append(chunks, m)
		if m.Content != "" {
			rs.delta(ctx, m.Content)
		}
	}
	sr.Close()
	full, err := schema.ConcatMessages(chunks)
	if err != nil {
		return err
	}
	var usage conversation.Usage
	if full.ResponseMeta != nil && full.ResponseMeta.Usage != nil {
		usage = conversation.Usage{InputTokens: full.ResponseMeta.Usage.PromptTokens, OutputTokens: full.ResponseMeta.Usage.CompletionTokens}
	}
	full.ToolCalls = nil
	rs.endModel(ctx, full, usage)
	return nil
}

// finish stores the turn's messages and the chat's outcome, then tells
// the client: the final event (chat completed, failed, requires_action or
// canceled) is sent only once that write has committed, so a client that
// saw it can read all of it back, even if the process dies right after.
// It writes with a context of its own: a canceled run still records that
// it was canceled.
func (s *Service) finish(ctx context.Context, t *turn, rs *runState, runErr error) {
	wctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 10*time.Second)
	defer cancel()
	rs.mu.Lock()
	msgs, usage, pending, modelFailed := rs.out, rs.usage, rs.pending, rs.modelFailed
	transcript := s.transcript(rs)
	rs.mu.Unlock()
	now := s.d.Now().UTC()
	var fail *conversation.ChatError
	if runErr != nil && !canceled(runErr, ctx.Err()) {
		fail = s.failure(wctx, t, runErr, modelFailed)
	}
	if t.ephemeral {
		msgs, transcript = nil, nil
	}
	if err := t.stored.wait(context.Background()); err != nil {
		return // Start failed and said so; there is no chat to record
	}
	apply := func(c *conversation.Chat) error {
		c.Usage = c.Usage.Add(usage)
		if c.Status == conversation.ChatCanceled {
			return nil // canceled while it ran: that stays the outcome
		}
		outcome(c, runErr, ctx.Err(), fail, pending, transcript, now)
		return nil
	}
	// This process put the chat in progress and holds it as stored, so
	// the outcome is written without reading it back; the store applies
	// apply to the stored chat only if it moved on meanwhile (canceled).
	ended := *t.chat
	_ = apply(&ended)
	chat, err := s.endTurn(wctx, &ended, msgs, apply)
	if err != nil {
		err = fmt.Errorf("chat: record the outcome: %w", err)
		chat = t.chat
		outcome(chat, err, nil, s.failure(wctx, t, errors.Join(runErr, err), false), nil, nil, now)
	}
	s.sendOutcome(t.sink, chat)
}

// transcript is what a chat resumes from, for client tool outputs or the
// end user's answer to a tool's question: what the model saw, its message
// with the tool calls, and the results of the server tools among them.
// The open calls are answered when the chat resumes, so the model then
// gets every call of that message answered right after it, as
// OpenAI-compatible providers require.
func (s *Service) transcript(rs *runState) []byte {
	if rs.asked != nil && rs.askedFrom != nil {
		b, _ := json.Marshal(state{Transcript: rs.askedFrom, Asked: rs.asked})
		return b
	}
	if (len(rs.pending) == 0 && rs.asked == nil) || rs.calling == nil {
		return nil
	}
	msgs := append(append([]*schema.Message{}, rs.lastInput...), rs.calling)
	msgs = append(msgs, rs.results...)
	b, _ := json.Marshal(state{Transcript: msgs, Asked: rs.asked})
	return b
}

// outcome sets a chat's final status from how its run ended; fail is the
// last error of a failed run.
func outcome(c *conversation.Chat, runErr, ctxErr error, fail *conversation.ChatError, pending []conversation.ToolCall, transcript []byte, now time.Time) {
	switch {
	case canceled(runErr, ctxErr):
		c.Status = conversation.ChatCanceled
		c.CompletedAt = &now
	case runErr != nil:
		c.Status = conversation.ChatFailed
		c.FailedAt = &now
		c.LastError = fail
	case len(pending) > 0:
		c.Status = conversation.ChatRequiresAction
		c.RequiredAction = &conversation.RequiredAction{ToolCalls: pending}
		c.State = transcript
	default:
		c.Status = conversation.ChatCompleted
		c.CompletedAt = &now
		c.State = transcript // a tool's open question, or nothing
	}
}

func canceled(runErr, ctxErr error) bool {
	return errors.Is(ctxErr, context.Canceled) || errors.Is(runErr, context.Canceled)
}

func (s *Service) sendOutcome(sink Sink, chat *conversation.Chat) {
	kind := map[conversation.ChatStatus]EventKind{
		conversation.ChatCompleted: EventChatCompleted, conversation.ChatFailed: EventChatFailed,
		conversation.ChatRequiresAction: EventRequiresAction, conversation.ChatCanceled: EventChatCanceled,
	}[chat.Status]
	if kind == "" {
		kind = EventChatFailed
	}
	sink.Send(Event{Kind: kind, Chat: chat})
	sink.Send(Event{Kind: EventDone})
}

// appOf is the app of a bot configuration; 0 for none.
func appOf(cfg *bot.Config) int64 {
	if cfg == nil {
		return 0
	}
	return cfg.AppID
}
