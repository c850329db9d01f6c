package chat

import (
	"context"
	"fmt"
	"strconv"
	"unicode/utf8"

	"github.com/cloudwego/eino/schema"

	convapp "github.com/pergola-ai/pergola/application/conversation"
	"github.com/pergola-ai/pergola/domain/bot"
	"github.com/pergola-ai/pergola/domain/conversation"
	"github.com/pergola-ai/pergola/domain/errs"
	"github.com/pergola-ai/pergola/domain/identity"
	"github.com/pergola-ai/pergola/domain/variable"
)

// ConnectorAPI is the channel of chats started through the API, as Coze
// numbers it; ConnectorDebug is the builder's debug chat on the draft.
const (
	ConnectorAPI   = "1024"
	ConnectorDebug = "debug"
)

// Request is a chat to start.
type Request struct {
	BotID              int64
	ConversationID     int64 // 0: open a new conversation
	UserID             string
	AdditionalMessages []InputMessage
	AutoSaveHistory    bool
	CustomVariables    map[string]string
	MetaData           map[string]string
	Draft              bool         // a builder's debug chat on the draft
	Tools              RequestTools // an OpenAI request's function tools for this turn
	Instructions       string       // an OpenAI request's instructions, added to the prompt
}

// Start checks the request, records the chat and its question, and runs
// the bot in the background; events go to sink (nil: nobody streams). It
// returns the new chat in_progress. Bad input fails before anything is
// stored.
func (s *Service) Start(ctx context.Context, p identity.Principal, req Request, sink Sink) (*conversation.Chat, error) {
	if sink == nil {
		sink = discard{}
	}
	if err := s.checkRequest(p, req); err != nil {
		return nil, err
	}
	b, cfg, version, err := s.d.Bots.ResolveForChat(ctx, p, req.BotID, req.Draft)
	if err != nil {
		return nil, err
	}
	if err := s.checkFiles(ctx, "additional_messages", b.WorkspaceID, req.AdditionalMessages); err != nil {
		return nil, err
	}
	c, err := s.agentForRequest(ctx, b, cfg, version, req.Tools)
	if err != nil {
		return nil, err
	}
	connector := ConnectorAPI
	if req.Draft {
		connector = ConnectorDebug
	}
	values := s.prefetchValues(ctx, variable.Scope{BotID: b.ID, ConnectorID: connector, UserID: req.UserID}, cfg.Variables)
	// ResolveForChat found the caller a member of the bot's workspace:
	// the conversation's read does not ask again when it lives there.
	conv, history, err := s.d.Conversations.ResolveTurn(ctx, p, convapp.TurnQuery{ConversationID: req.ConversationID,
		BotID: b.ID, MemberOf: b.WorkspaceID, ConnectorID: connector, HistoryRounds: cfg.HistoryRounds})
	if err != nil {
		return nil, err
	}
	pl := turnPlan{bot: b, cfg: cfg, compiled: c, version: version, conv: conv, history: history, values: values, connector: connector}
	if err := s.followActive(ctx, &pl, req.Tools, req.UserID); err != nil {
		return nil, err
	}
	return s.begin(ctx, pl, req, sink)
}

// turnPlan is what a turn runs: the bot, its resolved configuration and
// compiled agent, the conversation, its history and the connector it runs
// in, and the end user's keyword memory (read meanwhile).
type turnPlan struct {
	bot       *bot.Bot
	cfg       *bot.Config
	compiled  *compiled
	version   int64
	conv      *conversation.Conversation
	history   []conversation.Message
	values    func() (map[string]string, error)
	connector string
	// home is the chat's bot when the conversation was handed to another
	// bot, which answers (handoff_start.go); nil: bot.
	home *handoff
}

// begin records the chat and its question and launches the run, as Start
// describes.
func (s *Service) begin(ctx context.Context, pl turnPlan, req Request, sink Sink) (*conversation.Chat, error) {
	b, cfg, c, conv, connector := pl.bot, pl.cfg, pl.compiled, pl.conv, pl.connector
	scope := variable.Scope{BotID: b.ID, ConnectorID: connector, UserID: req.UserID}
	values, err := pl.values()
	if err != nil {
		return nil, err
	}
	for k, v := range req.CustomVariables {
		values[k] = v
	}
	now := s.d.Now().UTC()
	chatBot, chatVersion := pl.chatBot()
	chat := &conversation.Chat{
		ID: s.d.IDs.Next(), WorkspaceID: conv.WorkspaceID, ConversationID: conv.ID, SectionID: conv.SectionID,
		BotID: chatBot, BotVersion: chatVersion, UserID: req.UserID, ConnectorID: connector,
		Status: conversation.ChatInProgress, MetaData: nonNil(req.MetaData), CreatedAt: now,
	}
	t := &turn{chat: chat, cfg: cfg, compiled: c, scope: scope, sink: sink, hidden: !req.AutoSaveHistory, botID: b.ID, botVersion: pl.version,
		home: pl.homeOf()}
	if t.resume, err = s.openQuestion(ctx, conv.ID, b, c); err != nil {
		return nil, fmt.Errorf("chat: open question: %w", err)
	}
	if t.resume != nil {
		last := req.AdditionalMessages[len(req.AdditionalMessages)-1]
		t.resume.answer = contentText(last.ContentType, last.Content)
	}
	asked := t.storedInputs(s, req.AdditionalMessages)
	t.input = append([]*schema.Message{schema.SystemMessage(withInstructions(systemPrompt(cfg, values, now), req.Instructions))},
		s.modelInput(ctx, conv.WorkspaceID, c.vision, pl.history)...)
	t.input = append(t.input, s.modelInput(ctx, conv.WorkspaceID, c.vision, derefs(asked))...)
	t.input = fitHistory(t.input, s.d.Limits.HistoryChars)
	if err := s.launchStored(ctx, t, asked); err != nil {
		return nil, err
	}
	return chat, nil
}

// launchStored announces the turn's chat, launches its run and stores the
// chat with its question meanwhile: the first token does not wait on the
// database (tools do: see storeGate). It returns once they are stored; a
// failed store cancels the run.
func (s *Service) launchStored(ctx context.Context, t *turn, asked []*conversation.Message) error {
	t.stored = newStoreGate()
	s.announce(t.sink, t.chat)
	s.launch(ctx, t)
	err := s.store(ctx, t.chat, asked)
	t.stored.open(err)
	if err != nil {
		s.cancelLocal(t.chat.ID)
	}
	return err
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

// store saves the chat and its question. The run already reads chat, so
// the store gets a copy to fill in: the chat's id and time are set.
func (s *Service) store(ctx context.Context, chat *conversation.Chat, asked []*conversation.Message) error {
	stored := *chat
	if err := s.d.Chats.StartChat(ctx, &stored, asked); err != nil {
		return fmt.Errorf("chat: store the chat and its question: %w", err)
	}
	return nil
}

func (s *Service) checkRequest(p identity.Principal, req Request) error {
	if err := p.RequireScope(identity.ScopeChat); err != nil {
		return err
	}
	if req.BotID <= 0 {
		return errs.Invalid("bot_id", "is required")
	}
	if err := checkUserID("user_id", req.UserID); err != nil {
		return err
	}
	if err := s.d.Conversations.ValidateMessages("additional_messages", req.AdditionalMessages); err != nil {
		return err
	}
	if err := s.d.Limits.CheckMessages("additional_messages", req.AdditionalMessages); err != nil {
		return err
	}
	if err := s.d.Limits.CheckText("instructions", req.Instructions); err != nil {
		return err
	}
	n := len(req.AdditionalMessages)
	if n == 0 || req.AdditionalMessages[n-1].Role != conversation.RoleUser {
		return errs.Invalid("additional_messages", "must end with the user's message (role user)")
	}
	if err := checkMetaData("meta_data", req.MetaData); err != nil {
		return err
	}
	for k := range req.CustomVariables {
		if utf8.RuneCountInString(req.CustomVariables[k]) > variable.MaxValueLen {
			return errs.Invalid("custom_variables."+k, "must be at most %d characters", variable.MaxValueLen)
		}
	}
	return nil
}

// checkMetaData applies the limits messages have too: at most 16 keys of
// 1-64 characters, values of at most 512.
func checkMetaData(at string, md map[string]string) error {
	if len(md) > 16 {
		return errs.Invalid(at, "at most 16 keys, got %d", len(md))
	}
	for k, v := range md {
		if n := utf8.RuneCountInString(k); n == 0 || n > 64 {
			return errs.Invalid(at, "keys must be 1-64 characters, got %q", k)
		}
		if utf8.RuneCountInString(v) > 512 {
			return errs.Invalid(at+"."+k, "must be at most 512 characters")
		}
	}
	return nil
}

// storedInputs turns the caller's messages into messages of the chat:
// the user's are questions, the assistant's answers.
func (t *turn) storedInputs(s *Service, in []InputMessage) []*conversation.Message {
	out := make([]*conversation.Message, len(in))
	for i, m := range in {
		msg := t.newMessage(s, conversation.TypeQuestion, m.Content)
		msg.Role = m.Role
		if m.Role == conversation.RoleAssistant {
			msg.Type = conversation.TypeAnswer
		}
		if m.ContentType != "" {
			msg.ContentType = m.ContentType
		}
		msg.MetaData = nonNil(m.MetaData)
		msg.BotID = t.chat.BotID
		out[i] = msg
	}
	return out
}

// announce sends what every stream starts with.
func (s *Service) announce(sink Sink, chat *conversation.Chat) {
	created := *chat
	created.Status = conversation.ChatCreated
	sink.Send(Event{Kind: EventChatCreated, Chat: &created})
	progress := *chat
	sink.Send(Event{Kind: EventChatInProgress, Chat: &progress})
}

func nonNil(m map[string]string) map[string]string {
	if m == nil {
		return map[string]string{}
	}
	return m
}

func derefs(ms []*conversation.Message) []conversation.Message {
	out := make([]conversation.Message, len(ms))
	for i, m := range ms {
		out[i] = *m
	}
	return out
}

// idString formats an id for messages to the model and errors.
func idString(id int64) string { return strconv.FormatInt(id, 10) }
