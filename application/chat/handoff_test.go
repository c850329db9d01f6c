package chat

import (
	"strings"
	"testing"

	"github.com/pergola-ai/pergola/domain/bot"
	"github.com/pergola-ai/pergola/domain/conversation"
)

// answerOfTurn is the last answer the turn's events carried.
func answerOfTurn(t *testing.T, events []Event) *conversation.Message {
	t.Helper()
	var m *conversation.Message
	for _, e := range events {
		if e.Kind == EventMessageDone && e.Message.Type == conversation.TypeAnswer {
			m = e.Message
		}
	}
	if m == nil {
		t.Fatalf("no answer among %v", kinds(events))
	}
	return m
}

// lastSystem is the system prompt of the model's latest request.
func (h *harness) lastSystem() string {
	reqs := h.llm.Requests()
	return reqs[len(reqs)-1].Messages[0].Content
}

// TestHandoffAnswersAndKeepsTheConversation: a transfer hands the rest of
// the turn to the target's published version, with the note, and the
// target answers the next turns until it hands the conversation back.
func TestHandoffAnswersAndKeepsTheConversation(t *testing.T) {
	h := newHandoffHarness(t, 3)
	chat, events := h.ask(t, `#call transfer_to_Billing {"note":"wants a refund"}`)
	if chat.BotID != 7 {
		t.Fatalf("chat bot = %d, want the conversation's bot 7", chat.BotID)
	}
	first := h.llm.Requests()[0]
	if !first.HasTool("transfer_to_Billing") || !first.HasTool("transfer_to_Sales") {
		t.Fatalf("Support's tools = %v, want a transfer tool per target", first.Tools)
	}
	answer := answerOfTurn(t, events)
	if answer.BotID != 8 || !strings.HasPrefix(answer.Content, "echo: #call transfer_to_Billing") {
		t.Fatalf("answer = bot %d %q, want Billing's (8) echo", answer.BotID, answer.Content)
	}
	if sys := h.lastSystem(); !strings.Contains(sys, "You are Billing.") || !strings.Contains(sys, `"Support" handed this conversation`) ||
		!strings.Contains(sys, "wants a refund") {
		t.Fatalf("Billing's system prompt = %q, want its persona and the note", sys)
	}
	if got := h.store.activeBot(); got != 8 {
		t.Fatalf("active bot = %d, want 8", got)
	}

	_, events = h.ask(t, "hello")
	if a := answerOfTurn(t, events); a.BotID != 8 || a.Content != "echo: hello" || !strings.Contains(h.lastSystem(), "You are Billing.") {
		t.Fatalf("next turn answered by bot %d %q with %q, want Billing", a.BotID, a.Content, h.lastSystem())
	}

	_, events = h.ask(t, "#call transfer_to_Support {}")
	if a := answerOfTurn(t, events); a.BotID != 7 || !strings.Contains(h.lastSystem(), "You are Support.") {
		t.Fatalf("after handing back: answered by bot %d, want Support (7)", a.BotID)
	}
	if got := h.store.activeBot(); got != 0 {
		t.Fatalf("active bot after handing back = %d, want 0 (the conversation's own)", got)
	}
}

// TestHandoffLimitAndRefusals: past the limit, and to a bot not published
// where the turn runs, the transfer tool answers the model, which answers
// the user; the turn completes.
func TestHandoffLimitAndRefusals(t *testing.T) {
	h := newHandoffHarness(t, 2)
	chat, events := h.ask(t, "#call transfer_to_Billing {} #call transfer_to_Support {}")
	if chat.Status != conversation.ChatInProgress {
		t.Fatalf("start = %s", chat.Status)
	}
	a := answerOfTurn(t, events)
	if a.BotID != 7 || !strings.Contains(a.Content, "reached its limit of 2 handoffs") {
		t.Fatalf("answer after two handoffs = bot %d %q, want Support telling the limit", a.BotID, a.Content)
	}
	if last := events[len(events)-2]; last.Kind != EventChatCompleted {
		t.Fatalf("turn ended with %s", last.Kind)
	}

	h = newHandoffHarness(t, 3)
	_, events = h.ask(t, "#call transfer_to_Sales {}")
	a = answerOfTurn(t, events)
	if a.BotID != 7 || !strings.Contains(a.Content, `cannot transfer to "Sales": it is not published to this channel`) {
		t.Fatalf("answer = bot %d %q, want Support saying Sales is not published", a.BotID, a.Content)
	}
	if got := h.store.activeBot(); got != 0 {
		t.Fatalf("active bot after a refused transfer = %d", got)
	}
}

// TestTransferToolNames: one tool per target, named after it with only
// the characters tool names allow, unique among the bot's tools.
func TestTransferToolNames(t *testing.T) {
	cfg := &bot.Config{Handoffs: []bot.Handoff{{BotID: 5, Name: "Billing Team!"}, {BotID: 6, Name: "客服"},
		{BotID: 7, Name: "Billing Team"}, {BotID: 8, Name: "taken"}}}
	tools := transferTools(cfg, map[string]bool{"transfer_to_taken": true})
	var got []string
	for _, tl := range tools {
		info, _ := tl.Info(t.Context())
		got = append(got, info.Name)
	}
	want := []string{"transfer_to_Billing_Team", "transfer_to_bot_6", "transfer_to_bot_7", "transfer_to_bot_8"}
	if strings.Join(got, ",") != strings.Join(want, ",") {
		t.Fatalf("names = %v, want %v", got, want)
	}
}

// TestHandoffClientToolOutputs: a chat that stopped for the client tool
// of the bot it was handed to continues with that bot when the outputs
// come.
func TestHandoffClientToolOutputs(t *testing.T) {
	h := newHandoffHarness(t, 3)
	chat, events := h.ask(t, "#call transfer_to_Billing {} #call lookup {}")
	end := events[len(events)-2]
	if end.Kind != EventRequiresAction || end.Chat.RequiredAction.ToolCalls[0].Name != "lookup" {
		t.Fatalf("end = %v; want Billing's lookup waiting", kinds(events))
	}
	rec := newRecorder()
	call := end.Chat.RequiredAction.ToolCalls[0]
	if _, err := h.svc.Submit(t.Context(), h.who, 11, chat.ID, []conversation.ToolOutput{{ToolCallID: call.ID, Output: "42"}}, rec); err != nil {
		t.Fatal(err)
	}
	a := answerOfTurn(t, rec.wait(t))
	if a.BotID != 8 || a.Content != "tool said: 42" || !strings.Contains(h.lastSystem(), "You are Billing.") {
		t.Fatalf("after the outputs: bot %d %q; want Billing going on", a.BotID, a.Content)
	}
}
