package chat

import (
	"context"
	"strings"
	"sync"
	"testing"

	"github.com/pergola-ai/pergola/domain/bot"
	"github.com/pergola-ai/pergola/domain/conversation"
	"github.com/pergola-ai/pergola/domain/errs"
	"github.com/pergola-ai/pergola/domain/variable"
)

// fakePublished serves the published versions of sub-bots; a bot without
// a version is not published.
type fakePublished struct {
	bots     map[int64]*bot.Bot
	versions map[int64]*bot.Version
}

func (f *fakePublished) ResolvePublished(_ context.Context, id int64, _ string) (*bot.Bot, *bot.Version, error) {
	b, ok := f.bots[id]
	if !ok {
		return nil, nil, errs.NotFound("bot", idString(id))
	}
	v, ok := f.versions[id]
	if !ok {
		return b, nil, errs.Forbidden("bot %d is not published", id)
	}
	return b, v, nil
}

// fakeOpener keeps the conversations sub-agents open.
type fakeOpener struct {
	mu    sync.Mutex
	convs []conversation.Conversation
}

func (f *fakeOpener) CreateConversation(_ context.Context, c *conversation.Conversation) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	c.ID = int64(1000 + len(f.convs))
	c.SectionID = c.ID + 1
	f.convs = append(f.convs, *c)
	return nil
}

// subHarness is a parent bot (7) whose sub-agents are Researcher (20,
// with a variable, so it has a tool) and Writer (21).
func subHarness(t *testing.T, subs []bot.SubAgent, calls int) (*harness, *fakePublished, *fakeOpener) {
	t.Helper()
	h := newHarness(t, bot.Config{Name: "Parent", Prompt: "You delegate.", SubAgents: subs})
	sub := func(id int64, name string, cfg bot.Config) {
		cfg.Name, cfg.Model.ModelID = name, "fake"
		cfg.Normalize()
		pub := h.svc.d.Published.(*fakePublished)
		pub.bots[id] = &bot.Bot{ID: id, WorkspaceID: 1, CreatorID: 1, Draft: cfg, PublishedVersion: 1}
		pub.versions[id] = &bot.Version{BotID: id, Number: 1, Config: cfg}
	}
	pub := &fakePublished{bots: map[int64]*bot.Bot{}, versions: map[int64]*bot.Version{}}
	opener := &fakeOpener{}
	h.svc.d.Published, h.svc.d.Opener = pub, opener
	h.svc.d.SubAgents = SubAgentLimits{TurnModelCalls: calls}.withDefaults()
	sub(20, "Researcher", bot.Config{Variables: []variable.Definition{{Keyword: "city"}}})
	sub(21, "Writer", bot.Config{})
	return h, pub, opener
}

var twoSubs = []bot.SubAgent{{BotID: 20, Description: "finds facts"}, {BotID: 21, Description: "writes text"}}

// The parent calls Researcher, whose own tool call streams to the
// parent's client as a message of bot 20; its answer comes back as the
// tool's result, and its run is a chat of its own, linked to the parent's.
func TestSubAgentAnswersThroughTheParent(t *testing.T) {
	h, _, opener := subHarness(t, twoSubs, 0)
	task := `#call setKeywordMemory {\"data\":[{\"keyword\":\"city\",\"value\":\"Paris\"}]}`
	chat, events := h.ask(t, `#call researcher {"task":"`+task+`"}`)
	final := events[len(events)-2].Chat
	if final.Status != conversation.ChatCompleted {
		t.Fatalf("status %s (%+v)", final.Status, final.LastError)
	}
	var subCall, answer *conversation.Message
	for _, e := range events {
		if e.Kind != EventMessageDone {
			continue
		}
		switch m := e.Message; {
		case m.BotID == 20 && m.Type == conversation.TypeFunctionCall:
			subCall = m
		case m.BotID == 7 && m.Type == conversation.TypeAnswer:
			answer = m
		}
	}
	if subCall == nil || !strings.Contains(subCall.Content, "setKeywordMemory") {
		t.Fatalf("no function_call of bot 20 in the parent's stream: %+v", events)
	}
	if answer == nil || answer.Content != "tool said: tool said: saved: city" {
		t.Fatalf("answer = %+v", answer)
	}
	if len(opener.convs) != 1 || opener.convs[0].ParentID != 11 || opener.convs[0].BotID != 20 {
		t.Fatalf("sub-agent conversations = %+v", opener.convs)
	}
	h.store.mu.Lock()
	defer h.store.mu.Unlock()
	var sub *conversation.Chat
	for id := range h.store.chats {
		if c := h.store.chats[id]; c.BotID == 20 {
			sub = &c
		}
	}
	if sub == nil || sub.Status != conversation.ChatCompleted || sub.MetaData["parent_chat_id"] != idString(chat.ID) ||
		sub.Usage.Total() == 0 || sub.ConversationID != opener.convs[0].ID {
		t.Fatalf("sub-agent chat = %+v", sub)
	}
}

// return_directly ends the parent's turn with the sub-agent's answer.
func TestSubAgentReturnsDirectly(t *testing.T) {
	h, _, _ := subHarness(t, []bot.SubAgent{{BotID: 21, Description: "writes", ReturnDirectly: true}}, 0)
	_, events := h.ask(t, `#call writer {"task":"a haiku"}`)
	var answers []string
	for _, e := range events {
		if e.Kind == EventMessageDone && e.Message.Type == conversation.TypeAnswer {
			answers = append(answers, e.Message.Content)
		}
	}
	if len(answers) != 1 || answers[0] != "echo: a haiku" {
		t.Fatalf("answers = %q", answers)
	}
}

// What the model must be told comes back as the tool's result: a sub-bot
// not published, a cycle, the depth limit.
func TestSubAgentRefusals(t *testing.T) {
	h, pub, _ := subHarness(t, twoSubs, 0)
	delete(pub.versions, 21)
	_, events := h.ask(t, `#call writer {"task":"x"}`)
	if got := lastAnswer(events); !strings.Contains(got, "is not published") {
		t.Fatalf("answer = %q", got)
	}
	s := h.svc
	if msg := s.checkPath([]int64{7, 20}, 7, "Parent"); !strings.Contains(msg, "bot 7 → bot 20 → bot 7") {
		t.Errorf("cycle: %q", msg)
	}
	if msg := s.checkPath([]int64{1, 2, 3}, 4, "Deep"); msg != "" {
		t.Errorf("depth 3 refused: %q", msg)
	}
	if msg := s.checkPath([]int64{1, 2, 3, 4}, 5, "Deep"); !strings.Contains(msg, "only 3 deep") {
		t.Errorf("depth 4: %q", msg)
	}
}

// The model calls of a turn are counted across its agents: past the
// budget the turn fails and says why.
func TestSubAgentTurnBudget(t *testing.T) {
	h, _, _ := subHarness(t, twoSubs, 2) // the parent's call and Writer's; the parent's second is one too many
	_, events := h.ask(t, `#call writer {"task":"x"}`)
	final := events[len(events)-2].Chat
	if final.Status != conversation.ChatFailed || final.LastError == nil || !strings.Contains(final.LastError.Msg, "limit of 2 model calls") {
		t.Fatalf("chat = %s %+v", final.Status, final.LastError)
	}
}

func TestSubAgentToolNames(t *testing.T) {
	for name, want := range map[string]string{"Researcher": "researcher", "Web Search Bot!": "web_search_bot", "天气": "bot_9", "3D Artist": "bot_3d_artist"} {
		if got := bot.SubAgentToolName(name, 9); got != want {
			t.Errorf("%q → %q, want %q", name, got, want)
		}
	}
}

func lastAnswer(events []Event) string {
	out := ""
	for _, e := range events {
		if e.Kind == EventMessageDone && e.Message.Type == conversation.TypeAnswer {
			out = e.Message.Content
		}
	}
	return out
}
