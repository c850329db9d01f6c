package chat

import (
	"context"
	"slices"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/cloudwego/eino/components/model"

	convapp "github.com/pergola-ai/pergola/application/conversation"
	"github.com/pergola-ai/pergola/domain/bot"
	"github.com/pergola-ai/pergola/domain/conversation"
	"github.com/pergola-ai/pergola/domain/errs"
	"github.com/pergola-ai/pergola/domain/identity"
	"github.com/pergola-ai/pergola/domain/llm"
	"github.com/pergola-ai/pergola/domain/variable"
	"github.com/pergola-ai/pergola/infra/fakellm"
	"github.com/pergola-ai/pergola/infra/idgen"
	"github.com/pergola-ai/pergola/infra/provider"
)

// fakeBots serves one bot and keeps variable values in memory.
type fakeBots struct {
	mu      sync.Mutex
	bot     bot.Bot
	cfg     bot.Config
	version int64
	values  map[string]string
	setErr  error
}

func (f *fakeBots) ResolveForChat(_ context.Context, _ identity.Principal, id int64, draft bool) (*bot.Bot, *bot.Config, int64, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if id != f.bot.ID {
		return nil, nil, 0, errs.NotFound("bot", idString(id))
	}
	b, cfg := f.bot, f.cfg
	if draft {
		return &b, &cfg, 0, nil
	}
	return &b, &cfg, f.version, nil
}

func (f *fakeBots) VariableValues(_ context.Context, _ variable.Scope, defs []variable.Definition) (map[string]string, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	var stored []variable.Value
	for k, v := range f.values {
		stored = append(stored, variable.Value{Keyword: k, Value: v})
	}
	return variable.Resolve(defs, stored), nil
}

func (f *fakeBots) SetVariables(_ context.Context, _ variable.Scope, defs []variable.Definition, kvs []variable.KV) ([]variable.KV, []string, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.setErr != nil {
		return nil, nil, f.setErr
	}
	ok, refused := variable.Accept(defs, kvs)
	for _, kv := range ok {
		f.values[kv.Keyword] = kv.Value
	}
	return ok, refused, nil
}

// memStore keeps conversations, messages and chats in memory.
type memStore struct {
	mu    sync.Mutex
	conv  conversation.Conversation
	msgs  []conversation.Message
	chats map[int64]conversation.Chat
}

func (m *memStore) ResolveConversation(_ context.Context, _ identity.Principal, id, _ int64, _ string) (*conversation.Conversation, error) {
	if id != 0 && id != m.conv.ID {
		return nil, errs.NotFound("conversation", idString(id))
	}
	c := m.conv
	return &c, nil
}

func (m *memStore) ResolveTurn(ctx context.Context, p identity.Principal, q convapp.TurnQuery) (*conversation.Conversation, []conversation.Message, error) {
	c, err := m.ResolveConversation(ctx, p, q.ConversationID, q.BotID, q.ConnectorID)
	if err != nil || q.ConversationID == 0 {
		return c, nil, err
	}
	history, err := m.History(ctx, c.ID, c.SectionID, q.HistoryRounds)
	return c, history, err
}

func (m *memStore) ValidateMessages(at string, msgs []InputMessage) error {
	for i, msg := range msgs {
		if msg.Role != "user" && msg.Role != "assistant" {
			return errs.Invalid(at+"["+idString(int64(i))+"].role", "must be user or assistant")
		}
	}
	return nil
}

func (m *memStore) CreateMessages(_ context.Context, msgs ...*conversation.Message) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	for _, msg := range msgs {
		m.msgs = append(m.msgs, *msg)
	}
	return nil
}

func (m *memStore) GetMessage(context.Context, int64, int64) (*conversation.Message, error) {
	return nil, nil
}
func (m *memStore) ListMessages(context.Context, int64, conversation.MessageQuery) ([]conversation.Message, bool, error) {
	return nil, false, nil
}
func (m *memStore) UpdateMessage(context.Context, int64, int64, func(*conversation.Message) error) (*conversation.Message, error) {
	return nil, nil
}
func (m *memStore) DeleteMessage(context.Context, int64, int64) (*conversation.Message, error) {
	return nil, nil
}

func (m *memStore) ListChatMessages(_ context.Context, _, chatID int64) ([]conversation.Message, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	var out []conversation.Message
	for _, msg := range m.msgs {
		if msg.ChatID == chatID {
			out = append(out, msg)
		}
	}
	return out, nil
}

func (m *memStore) History(_ context.Context, _, section int64, rounds int) ([]conversation.Message, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	var qa []conversation.Message
	for _, msg := range m.msgs {
		if msg.SectionID == section && !msg.Hidden && (msg.Type == conversation.TypeQuestion || msg.Type == conversation.TypeAnswer) {
			qa = append(qa, msg)
		}
	}
	start, seen := len(qa), 0
	for i := len(qa) - 1; i >= 0 && seen < rounds; i-- {
		if qa[i].Type == conversation.TypeQuestion {
			start, seen = i, seen+1
		}
	}
	return qa[start:], nil
}

func (m *memStore) CreateChat(_ context.Context, c *conversation.Chat) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.chats[c.ID] = *c
	return nil
}

func (m *memStore) GetChat(_ context.Context, _, id int64) (*conversation.Chat, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	c, ok := m.chats[id]
	if !ok {
		return nil, errs.NotFound("chat", idString(id))
	}
	return &c, nil
}

func (m *memStore) UpdateChat(_ context.Context, _, id int64, fn func(*conversation.Chat) error) (*conversation.Chat, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	c, ok := m.chats[id]
	if !ok {
		return nil, errs.NotFound("chat", idString(id))
	}
	if err := fn(&c); err != nil {
		return nil, err
	}
	m.chats[id] = c
	return &c, nil
}

func (m *memStore) LatestChat(_ context.Context, conv int64) (*conversation.Chat, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	var latest *conversation.Chat
	for id := range m.chats {
		if c := m.chats[id]; c.ConversationID == conv && (latest == nil || c.ID > latest.ID) {
			latest = &c
		}
	}
	if latest == nil {
		return nil, errs.NotFound("chat", "latest")
	}
	return latest, nil
}

func (m *memStore) StartChat(ctx context.Context, c *conversation.Chat, msgs []*conversation.Message) error {
	if err := m.CreateChat(ctx, c); err != nil {
		return err
	}
	return m.CreateMessages(ctx, msgs...)
}

func (m *memStore) FinishChat(ctx context.Context, conv, id int64, msgs []*conversation.Message, fn func(*conversation.Chat) error) (*conversation.Chat, error) {
	c, err := m.UpdateChat(ctx, conv, id, fn)
	if err != nil {
		return nil, err
	}
	return c, m.CreateMessages(ctx, msgs...)
}

// EndTurn writes outcome while the chat is in progress, as the SQL store
// does, and otherwise lets fallback decide on the stored chat.
func (m *memStore) EndTurn(ctx context.Context, outcome *conversation.Chat, msgs []*conversation.Message, fallback func(*conversation.Chat) error) (*conversation.Chat, error) {
	m.mu.Lock()
	stored, ok := m.chats[outcome.ID]
	if ok && stored.Status == conversation.ChatInProgress {
		m.chats[outcome.ID] = *outcome
		m.mu.Unlock()
		c := *outcome
		return &c, m.CreateMessages(ctx, msgs...)
	}
	m.mu.Unlock()
	return m.FinishChat(ctx, outcome.ConversationID, outcome.ID, msgs, fallback)
}

// countingModels builds real eino-ext OpenAI clients and counts builds.
type countingModels struct {
	builds atomic.Int32
	f      provider.Factory
}

func (c *countingModels) ChatModel(ctx context.Context, m llm.Model) (model.ToolCallingChatModel, error) {
	c.builds.Add(1)
	return c.f.ChatModel(ctx, m)
}

func (c *countingModels) FormatOption(m llm.Model, f llm.ResponseFormat) (model.Option, bool) {
	return c.f.FormatOption(m, f)
}

type fixedModels struct{ m llm.Model }

func (f fixedModels) Get(_ context.Context, id string) (*llm.Model, error) {
	if id != f.m.ID {
		return nil, errs.NotFound("model", id)
	}
	m := f.m
	return &m, nil
}

// recorder is a sink that keeps every event and signals the end.
type recorder struct {
	mu     sync.Mutex
	events []Event
	done   chan struct{}
}

func newRecorder() *recorder { return &recorder{done: make(chan struct{})} }

func (r *recorder) Send(e Event) {
	r.mu.Lock()
	r.events = append(r.events, e)
	r.mu.Unlock()
	if e.Kind == EventDone {
		close(r.done)
	}
}

func (r *recorder) wait(t *testing.T) []Event {
	t.Helper()
	select {
	case <-r.done:
	case <-time.After(20 * time.Second):
		t.Fatal("the run did not finish in 20s")
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	return slices.Clone(r.events)
}

// harness is a runtime over fakes and a fake LLM served on 127.0.0.1.
type harness struct {
	svc    *Service
	llm    *fakellm.Server
	bots   *fakeBots
	store  *memStore
	models *countingModels
	who    identity.Principal
}

func newHarness(t *testing.T, cfg bot.Config, opts ...fakellm.Option) *harness {
	t.Helper()
	srv := fakellm.New(opts...)
	url, err := srv.Listen("127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = srv.Close() })
	cfg.Model.ModelID = "fake"
	cfg.Normalize()
	h := &harness{
		llm:    srv,
		bots:   &fakeBots{bot: bot.Bot{ID: 7, WorkspaceID: 1, DraftRevision: 1}, cfg: cfg, version: 1, values: map[string]string{}},
		store:  &memStore{conv: conversation.Conversation{ID: 11, WorkspaceID: 1, BotID: 7, SectionID: 12}, chats: map[int64]conversation.Chat{}},
		models: &countingModels{},
		who:    identity.Principal{UserID: 1, Scopes: []string{identity.ScopeAll}},
	}
	h.svc = New(Deps{
		Bots: h.bots, Conversations: h.store, Messages: h.store, Chats: h.store,
		Models: fixedModels{llm.Model{ID: "fake", Provider: llm.ProviderOpenAI, BaseURL: url, APIKey: "k", Model: "fake",
			Enabled: true, Capabilities: llm.Capabilities{Tools: true}}},
		ChatModels: h.models, IDs: idgen.New(), ToolTimeout: 5 * time.Second,
	})
	t.Cleanup(func() { _ = h.svc.Close(context.Background()) })
	return h
}

// ask starts a chat with one user message and waits for its end.
func (h *harness) ask(t *testing.T, text string) (*conversation.Chat, []Event) {
	t.Helper()
	rec := newRecorder()
	chat, err := h.svc.Start(context.Background(), h.who, Request{BotID: 7, ConversationID: 11, UserID: "u1",
		AdditionalMessages: []InputMessage{{Role: "user", Content: text, ContentType: "text"}}, AutoSaveHistory: true}, rec)
	if err != nil {
		t.Fatalf("start: %v", err)
	}
	return chat, rec.wait(t)
}

func kinds(events []Event) []EventKind {
	out := make([]EventKind, len(events))
	for i, e := range events {
		out[i] = e.Kind
	}
	return out
}

func newHarnessCaller() identity.Principal {
	return identity.Principal{UserID: 1, Scopes: []string{identity.ScopeAll}}
}
