package chat

import (
	"context"
	"errors"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/cloudwego/eino/components/tool"
	"github.com/google/go-cmp/cmp"

	"github.com/pergola-ai/pergola/domain/bot"
	"github.com/pergola-ai/pergola/domain/conversation"
	"github.com/pergola-ai/pergola/domain/errs"
	"github.com/pergola-ai/pergola/domain/variable"
	"github.com/pergola-ai/pergola/infra/fakellm"
)

func TestAnswerStreamsAndIsStored(t *testing.T) {
	h := newHarness(t, bot.Config{Name: "b", Prompt: "You are {{name}}'s helper.",
		Variables: []variable.Definition{{Keyword: "name", Default: "Ada", ShowInPrompt: true}}}, fakellm.WithChunkChars(3))
	chat, events := h.ask(t, "hello there")

	got := kinds(events)
	if got[0] != EventChatCreated || got[1] != EventChatInProgress || got[len(got)-2] != EventChatCompleted || got[len(got)-1] != EventDone {
		t.Fatalf("event order = %v", got)
	}
	var streamed strings.Builder
	deltas := 0
	for _, e := range events {
		if e.Kind == EventMessageDelta {
			streamed.WriteString(e.Message.Content)
			deltas++
		}
	}
	if streamed.String() != "echo: hello there" || deltas < 3 {
		t.Fatalf("streamed %q in %d deltas", streamed.String(), deltas)
	}
	end := events[len(events)-2].Chat
	if end.Status != conversation.ChatCompleted || end.Usage.Total() == 0 || end.ID != chat.ID {
		t.Fatalf("final chat = %+v", end)
	}
	stored, _ := h.store.ListChatMessages(context.Background(), 11, chat.ID)
	if len(stored) != 3 || stored[0].Type != "question" || stored[1].Type != "answer" || stored[1].Content != "echo: hello there" ||
		stored[2].Type != "verbose" || !strings.Contains(stored[2].Content, "generate_answer_finish") {
		t.Fatalf("stored = %+v", stored)
	}
	sys := h.llm.Requests()[0].Messages[0]
	if sys.Role != "system" || !strings.Contains(sys.Content, "You are Ada's helper.") || !strings.Contains(sys.Content, "- name: Ada") {
		t.Fatalf("system prompt = %q", sys.Content)
	}
}

func TestHistoryIsTheLastRoundsOfTheSection(t *testing.T) {
	h := newHarness(t, bot.Config{Name: "b", HistoryRounds: 2})
	for _, q := range []string{"one", "two", "three"} {
		h.ask(t, q)
	}
	last := h.llm.Requests()[2].Messages
	var texts []string
	for _, m := range last[1:] {
		texts = append(texts, m.Role+":"+m.Content)
	}
	want := []string{"user:one", "assistant:echo: one", "user:two", "assistant:echo: two", "user:three"}
	if d := cmp.Diff(want, texts); d != "" {
		t.Fatalf("with 2 rounds of history, the third question saw (-want +got):\n%s", d)
	}
	h2 := newHarness(t, bot.Config{Name: "b", HistoryRounds: 1})
	h2.ask(t, "one")
	h2.ask(t, "two")
	h2.ask(t, "three")
	if n := len(h2.llm.Requests()[2].Messages); n != 4 { // system, one round, the question
		t.Fatalf("1 round of history gave %d messages", n)
	}
}

// TestTextBeforeToolCallStillRunsTheTool covers eino's stream tool-call
// pitfall: the model writes text, then calls setKeywordMemory.
func TestTextBeforeToolCallStillRunsTheTool(t *testing.T) {
	h := newHarness(t, bot.Config{Name: "b", Variables: []variable.Definition{{Keyword: "city"}}})
	h.llm.Enqueue(fakellm.Reply{Text: "Let me remember that. ",
		ToolCalls: []fakellm.ToolCall{fakellm.Call("setKeywordMemory", `{"data":[{"keyword":"city","value":"Lyon"},{"keyword":"pet","value":"cat"}]}`)}})
	chat, events := h.ask(t, "I live in Lyon")
	if h.bots.values["city"] != "Lyon" || h.bots.values["pet"] != "" {
		t.Fatalf("values = %v", h.bots.values)
	}
	stored, _ := h.store.ListChatMessages(context.Background(), 11, chat.ID)
	var types []string
	for _, m := range stored {
		types = append(types, m.Type)
	}
	want := []string{"question", "answer", "function_call", "tool_response", "answer", "verbose"}
	if d := cmp.Diff(want, types); d != "" {
		t.Fatalf("messages (-want +got):\n%s", d)
	}
	if !strings.Contains(stored[3].Content, "saved: city") || !strings.Contains(stored[3].Content, "refused") || !strings.Contains(stored[3].Content, "pet") {
		t.Fatalf("tool result = %q", stored[3].Content)
	}
	if !strings.HasPrefix(stored[4].Content, "tool said: saved: city") {
		t.Fatalf("final answer = %q", stored[4].Content)
	}
	if events[len(events)-2].Chat.Status != conversation.ChatCompleted {
		t.Fatalf("status = %s", events[len(events)-2].Chat.Status)
	}
}

func TestToolErrorIsAResultNotACrash(t *testing.T) {
	h := newHarness(t, bot.Config{Name: "b", Variables: []variable.Definition{{Keyword: "city"}}})
	h.bots.setErr = errors.New("variable store is down")
	chat, events := h.ask(t, `#call setKeywordMemory {"data":[{"keyword":"city","value":"Oslo"}]}`)
	if end := events[len(events)-2].Chat; end.Status != conversation.ChatCompleted {
		t.Fatalf("status = %s (%+v)", end.Status, end.LastError)
	}
	if last := finalAnswer(t, h, chat.ID); !strings.Contains(last, "variable store is down") {
		t.Fatalf("the model did not see the tool error; answer = %q", last)
	}
}

func TestRoundLimitEndsWithAnAnswerWithoutTools(t *testing.T) {
	h := newHarness(t, bot.Config{Name: "b", MaxToolRounds: 1, Variables: []variable.Definition{{Keyword: "k"}}})
	call := `{"data":[{"keyword":"k","value":"v"}]}`
	h.llm.When(func(r fakellm.Request) bool { return r.HasTool("setKeywordMemory") },
		func(fakellm.Request) fakellm.Reply { return fakellm.Calls(fakellm.Call("setKeywordMemory", call)) })
	_, events := h.ask(t, "loop forever")
	end := events[len(events)-2].Chat
	if end.Status != conversation.ChatCompleted {
		t.Fatalf("status = %s %+v", end.Status, end.LastError)
	}
	reqs := h.llm.Requests()
	final := reqs[len(reqs)-1]
	if len(final.Tools) != 0 || !strings.HasPrefix(finalAnswer(t, h, end.ID), "echo:") {
		t.Fatalf("the last call had %d tools; answer %q", len(final.Tools), finalAnswer(t, h, end.ID))
	}
	if len(reqs) != 3 { // round 1: model+tool; model asks again; the last call
		t.Fatalf("model calls = %d, want 3", len(reqs))
	}
}

func finalAnswer(t *testing.T, h *harness, chatID int64) string {
	t.Helper()
	stored, _ := h.store.ListChatMessages(context.Background(), 11, chatID)
	for i := len(stored) - 1; i >= 0; i-- {
		if stored[i].Type == conversation.TypeAnswer {
			return stored[i].Content
		}
	}
	return ""
}

func TestClientToolRequiresActionThenSubmitContinues(t *testing.T) {
	h := newHarness(t, bot.Config{Name: "b", ClientTools: []bot.ClientTool{{Name: "get_weather", Description: "weather of a city",
		Parameters: map[string]any{"type": "object", "properties": map[string]any{"city": map[string]any{"type": "string"}}}}}})
	chat, events := h.ask(t, `#call get_weather {"city":"Shenzhen"}`)
	end := events[len(events)-2]
	if end.Kind != EventRequiresAction || end.Chat.RequiredAction == nil || len(end.Chat.RequiredAction.ToolCalls) != 1 {
		t.Fatalf("end = %+v", end)
	}
	call := end.Chat.RequiredAction.ToolCalls[0]
	if call.Name != "get_weather" || call.Arguments != `{"city":"Shenzhen"}` || call.ID == "" {
		t.Fatalf("tool call = %+v", call)
	}
	// A wrong id, a missing output, and then the right one.
	ctx := context.Background()
	if _, err := h.svc.Submit(ctx, h.who, 11, chat.ID, []conversation.ToolOutput{{ToolCallID: "nope", Output: "x"}}, nil); !errors.Is(err, errs.ErrInvalid) {
		t.Fatalf("wrong id: %v", err)
	}
	rec := newRecorder()
	if _, err := h.svc.Submit(ctx, h.who, 11, chat.ID, []conversation.ToolOutput{{ToolCallID: call.ID, Output: "18°C"}}, rec); err != nil {
		t.Fatal(err)
	}
	after := rec.wait(t)
	if last := after[len(after)-2]; last.Kind != EventChatCompleted || last.Chat.ID != chat.ID {
		t.Fatalf("after submit: %v", kinds(after))
	}
	if got := finalAnswer(t, h, chat.ID); got != "tool said: 18°C" {
		t.Fatalf("answer = %q", got)
	}
	if _, err := h.svc.Submit(ctx, h.who, 11, chat.ID, []conversation.ToolOutput{{ToolCallID: call.ID, Output: "again"}}, nil); !errors.Is(err, errs.ErrConflict) {
		t.Fatalf("second submit: %v", err)
	}
}

func TestConcurrentSubmitsOnlyOneWins(t *testing.T) {
	h := newHarness(t, bot.Config{Name: "b", ClientTools: []bot.ClientTool{{Name: "ask_user"}}})
	chat, events := h.ask(t, `#call ask_user {}`)
	id := events[len(events)-2].Chat.RequiredAction.ToolCalls[0].ID
	var wg sync.WaitGroup
	errsSeen := make([]error, 8)
	for i := range errsSeen {
		wg.Add(1)
		go func() {
			defer wg.Done()
			_, errsSeen[i] = h.svc.Submit(context.Background(), h.who, 11, chat.ID, []conversation.ToolOutput{{ToolCallID: id, Output: "ok"}}, nil)
		}()
	}
	wg.Wait()
	wins := 0
	for _, err := range errsSeen {
		if err == nil {
			wins++
		} else if !errors.Is(err, errs.ErrConflict) {
			t.Fatalf("unexpected error %v", err)
		}
	}
	if wins != 1 {
		t.Fatalf("%d submits won, want 1", wins)
	}
}

func TestCancelStopsARunningChat(t *testing.T) {
	h := newHarness(t, bot.Config{Name: "b"}, fakellm.WithTokenLatency(50*time.Millisecond), fakellm.WithChunkChars(1))
	rec := newRecorder()
	chat, err := h.svc.Start(context.Background(), h.who, Request{BotID: 7, ConversationID: 11, UserID: "u1",
		AdditionalMessages: []InputMessage{{Role: "user", Content: "a long answer please"}}, AutoSaveHistory: true}, rec)
	if err != nil {
		t.Fatal(err)
	}
	canceled, err := h.svc.Cancel(context.Background(), h.who, 11, chat.ID)
	if err != nil || canceled.Status != conversation.ChatCanceled {
		t.Fatalf("cancel: %+v %v", canceled, err)
	}
	events := rec.wait(t)
	if end := events[len(events)-2]; end.Chat.Status != conversation.ChatCanceled {
		t.Fatalf("after cancel the run ended %s", end.Chat.Status)
	}
	if _, err := h.svc.Cancel(context.Background(), h.who, 11, chat.ID); !errors.Is(err, errs.ErrConflict) {
		t.Fatalf("canceling a canceled chat: %v", err)
	}
}

func TestAgentIsBuiltOncePerVersion(t *testing.T) {
	h := newHarness(t, bot.Config{Name: "b"})
	h.ask(t, "one")
	h.ask(t, "two")
	if n := h.models.builds.Load(); n != 1 {
		t.Fatalf("built %d times for one version", n)
	}
	h.bots.mu.Lock()
	h.bots.version = 2
	h.bots.mu.Unlock()
	h.ask(t, "three")
	if n := h.models.builds.Load(); n != 2 {
		t.Fatalf("a new version did not get its own agent: %d builds", n)
	}
}

func TestBadRequestsStoreNothing(t *testing.T) {
	h := newHarness(t, bot.Config{Name: "b"})
	cases := map[string]Request{
		"user_id":             {BotID: 7, AdditionalMessages: []InputMessage{{Role: "user", Content: "x"}}},
		"additional_messages": {BotID: 7, UserID: "u", AdditionalMessages: []InputMessage{{Role: "assistant", Content: "x"}}},
		"bot_id":              {UserID: "u", AdditionalMessages: []InputMessage{{Role: "user", Content: "x"}}},
	}
	for field, req := range cases {
		if _, err := h.svc.Start(context.Background(), h.who, req, nil); !errors.Is(err, errs.ErrInvalid) || !strings.Contains(err.Error(), field) {
			t.Errorf("%s: %v", field, err)
		}
	}
	if _, err := h.svc.Start(context.Background(), h.who, Request{BotID: 99, UserID: "u",
		AdditionalMessages: []InputMessage{{Role: "user", Content: "x"}}}, nil); !errors.Is(err, errs.ErrNotFound) {
		t.Errorf("unknown bot: %v", err)
	}
	if len(h.store.msgs) != 0 || len(h.store.chats) != 0 {
		t.Fatalf("bad requests stored %d messages and %d chats", len(h.store.msgs), len(h.store.chats))
	}
}

func TestFollowUpsAfterTheAnswer(t *testing.T) {
	h := newHarness(t, bot.Config{Name: "b", SuggestReply: bot.SuggestReply{Enabled: true, Prompt: "Keep them short."}})
	h.llm.When(func(r fakellm.Request) bool { return strings.Contains(r.LastUserText(), "Suggest up to 3") },
		func(r fakellm.Request) fakellm.Reply {
			return fakellm.Text("1. What else?\n- And then?\n\nWhy?\nOne too many?")
		})
	chat, events := h.ask(t, "tell me")
	stored, _ := h.store.ListChatMessages(context.Background(), 11, chat.ID)
	var follow []string
	for _, m := range stored {
		if m.Type == conversation.TypeFollowUp {
			follow = append(follow, m.Content)
		}
	}
	if d := cmp.Diff([]string{"What else?", "And then?", "Why?"}, follow); d != "" {
		t.Fatalf("follow-ups (-want +got):\n%s", d)
	}
	last := h.llm.Requests()[len(h.llm.Requests())-1]
	if !strings.Contains(last.LastUserText(), "Keep them short.") || len(last.Tools) != 0 {
		t.Fatalf("suggestion request = %+v", last)
	}
	if events[len(events)-2].Kind != EventChatCompleted || events[len(events)-3].Message.Type != conversation.TypeFollowUp {
		t.Fatalf("the follow-ups do not come right before chat.completed: %v", kinds(events))
	}
}

// clashingTools is a tool source that adds a tool named like a client tool.
type clashingTools struct{}

func (clashingTools) BotTools(context.Context, *bot.Bot, *bot.Config) ([]tool.BaseTool, error) {
	return []tool.BaseTool{clientTool{spec: bot.ClientTool{Name: "lookup"}}}, nil
}

func TestTwoToolsWithOneNameAreRefused(t *testing.T) {
	h := newHarness(t, bot.Config{Name: "b", ClientTools: []bot.ClientTool{{Name: "lookup"}}})
	h.svc.d.Tools = []ToolSource{clashingTools{}}
	_, err := h.svc.Start(context.Background(), h.who, Request{BotID: 7, ConversationID: 11, UserID: "u",
		AdditionalMessages: []InputMessage{{Role: "user", Content: "x"}}}, nil)
	if !errors.Is(err, errs.ErrInvalid) || !strings.Contains(err.Error(), `two tools named "lookup"`) {
		t.Fatalf("got %v", err)
	}
}
