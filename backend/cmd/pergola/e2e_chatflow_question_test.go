package main

import (
	"encoding/json"
	"strings"
	"testing"
)

// Chatflows that ask: the question streams as the bot's answer (text, or
// Coze's card for options and forms), the chat ends requires_action, and
// the conversation's next message answers it.
const (
	// askFlow asks a free question, then one with fixed options.
	askFlow = `{"nodes": [
	  {"id": "start", "type": "start", "outputs": [{"name": "USER_INPUT", "type": "string"}]},
	  {"id": "name", "type": "question", "config": {"question": "What is your name?"}},
	  {"id": "drink", "type": "question", "config": {"question": "Tea or coffee, {{n}}?", "answer_type": "option", "options": ["Tea", "Coffee"]},
	   "inputs": {"n": {"ref": {"node": "name", "path": "answer"}}}},
	  {"id": "end", "type": "end", "config": {"mode": "text", "template": "{{n}} drinks {{d}}"},
	   "inputs": {"n": {"ref": {"node": "name", "path": "answer"}}, "d": {"ref": {"node": "drink", "path": "answer"}}}}],
	 "edges": [{"from": "start", "to": "name"}, {"from": "name", "to": "drink"}, {"from": "drink", "to": "end"}]}`
	// otherFlow's question takes other answers, as Coze's option questions
	// do (their "other" branch).
	otherFlow = `{"nodes": [
	  {"id": "start", "type": "start", "outputs": [{"name": "USER_INPUT", "type": "string"}]},
	  {"id": "drink", "type": "question", "config": {"question": "Tea or coffee?", "answer_type": "option", "options": ["Tea", "Coffee"], "allow_other": true}},
	  {"id": "end", "type": "end", "config": {"mode": "text", "template": "{{d}} ({{i}})"},
	   "inputs": {"d": {"ref": {"node": "drink", "path": "answer"}}, "i": {"ref": {"node": "drink", "path": "option_index"}}}}],
	 "edges": [{"from": "start", "to": "drink"}, {"from": "drink", "to": "end"}]}`
	// formFlow asks for a form.
	formFlow = `{"nodes": [
	  {"id": "start", "type": "start", "outputs": [{"name": "USER_INPUT", "type": "string"}]},
	  {"id": "form", "type": "input", "outputs": [{"name": "who", "type": "string", "required": true}, {"name": "age", "type": "integer"}]},
	  {"id": "end", "type": "end", "config": {"mode": "text", "template": "{{w}} is {{a}}"},
	   "inputs": {"w": {"ref": {"node": "form", "path": "who"}}, "a": {"ref": {"node": "form", "path": "age"}}}}],
	 "edges": [{"from": "start", "to": "form"}, {"from": "form", "to": "end"}]}`
	// batchFlow asks a question in each item of a batch running both
	// items at once.
	batchFlow = `{"nodes": [
	  {"id": "start", "type": "start", "outputs": [{"name": "USER_INPUT", "type": "string"}]},
	  {"id": "each", "type": "batch", "config": {"concurrency": 2, "collect": {"answers": {"node": "why", "path": "answer"}}},
	   "inputs": {"items": {"value": ["tea", "cake"]}},
	   "body": {"nodes": [{"id": "why", "type": "question", "config": {"question": "Why {{w}}?"}, "inputs": {"w": {"ref": {"node": "each", "path": "item"}}}}],
	            "edges": [{"from": "each", "to": "why"}]}},
	  {"id": "end", "type": "end", "config": {"mode": "text", "template": "{{a}}"}, "inputs": {"a": {"ref": {"node": "each", "path": "answers"}}}}],
	 "edges": [{"from": "start", "to": "each"}, {"from": "each", "to": "end"}]}`
)

// chatTurn posts one message of a chatflow conversation ("" for a new
// one) and returns the events and the conversation's id.
func (c *chatSetup) chatTurn(t *testing.T, workflowID, convID, text string) ([]sseEvent, string) {
	t.Helper()
	body := map[string]any{"workflow_id": workflowID, "additional_messages": userMessage(text)}
	if convID != "" {
		body["conversation_id"] = convID
	}
	events := c.s.stream(t, "/v1/workflows/chat", bootstrapToken, body)
	if len(events) < 3 {
		t.Fatalf("events = %v", names(events))
	}
	return events, str(events[0].obj(t), "conversation_id")
}

// wantEvents checks the names of a turn's events and that every chat
// event names the run.
func wantEvents(t *testing.T, events []sseEvent, want, executeID string) string {
	t.Helper()
	if got := strings.Join(names(events), " "); got != want {
		t.Fatalf("events = %s, want %s", got, want)
	}
	created := events[0].obj(t)
	if executeID != "" && str(created, "execute_id") != executeID {
		t.Fatalf("execute_id = %s, want %s", str(created, "execute_id"), executeID)
	}
	return str(created, "execute_id")
}

const (
	askedText = "conversation.chat.created conversation.chat.in_progress conversation.message.delta " +
		"conversation.message.completed conversation.chat.requires_action done"
	askedCard = "conversation.chat.created conversation.chat.in_progress conversation.message.completed " +
		"conversation.chat.requires_action done"
)

// questionCard checks a completed message is Coze's card of a question
// and returns what it shows.
func questionCard(t *testing.T, e sseEvent) map[string]any {
	t.Helper()
	m := e.obj(t)
	if str(m, "type") != "answer" || str(m, "role") != "assistant" || str(m, "content_type") != "card" {
		t.Fatalf("question message = %v", m)
	}
	var card struct {
		CardType     int               `json:"card_type"`
		ContentType  int               `json:"content_type"`
		ResponseType string            `json:"response_type"`
		XProperties  map[string]string `json:"x_properties"`
	}
	if err := json.Unmarshal([]byte(str(m, "content")), &card); err != nil || card.CardType != 3 || card.ContentType != 50 ||
		card.ResponseType != "card" {
		t.Fatalf("card = %s (%v)", str(m, "content"), err)
	}
	var info map[string]any
	if err := json.Unmarshal([]byte(card.XProperties["workflow_card_info"]), &info); err != nil {
		t.Fatalf("workflow_card_info = %q", card.XProperties["workflow_card_info"])
	}
	return info
}

// TestChatflowQuestions: a chatflow's questions stream as Coze streams
// them, the next message of the conversation answers (an answer that is
// not an option asks again), the run goes on to its answer, and a message
// while nothing waits starts a new run. On SQLite and on MariaDB with
// Redis.
func TestChatflowQuestions(t *testing.T) {
	for _, b := range backends() {
		t.Run(b.name, func(t *testing.T) {
			c := newChatSetup(t, b)
			id := c.workflow(t, "ask_flow", "asks", askFlow, true)

			events, conv := c.chatTurn(t, id, "", "hi")
			run := wantEvents(t, events, askedText, "")
			if m := events[3].obj(t); str(m, "content_type") != "text" || str(m, "content") != "What is your name?" ||
				str(events[2].obj(t), "content") != "What is your name?" {
				t.Fatalf("text question = %v", m)
			}
			if ra := events[4].obj(t); str(ra, "status") != "requires_action" || str(ra, "conversation_id") != conv || str(ra, "id") == "" {
				t.Fatalf("requires_action = %v", ra)
			}

			events, _ = c.chatTurn(t, id, conv, "Ada")
			wantEvents(t, events, askedCard, run)
			info := questionCard(t, events[2])
			if got := string(mustJSON(info)); got != `{"card_type":"QUESTION","question_card_data":{"Options":[{"name":"Tea"},{"name":"Coffee"}],"Title":"Tea or coffee, Ada?"}}` {
				t.Fatalf("card info = %s", got)
			}

			events, _ = c.chatTurn(t, id, conv, "Juice") // not an option: asked again
			wantEvents(t, events, askedCard, run)
			questionCard(t, events[2])

			events, _ = c.chatTurn(t, id, conv, "coffee")
			wantEvents(t, events[:2], "conversation.chat.created conversation.chat.in_progress", run)
			if got := names(events); got[len(got)-2] != "conversation.chat.completed" {
				t.Fatalf("answer events = %v", got)
			}
			_, done := chatParts(t, events)
			if got := completedOfType(done, "answer"); strings.Join(got, "|") != "Ada drinks Coffee" {
				t.Fatalf("answer = %q", got)
			}
			if hist := c.s.runHistory(t, id, run); str(hist, "execute_status") != "Success" {
				t.Fatalf("run = %v", hist)
			}

			events, _ = c.chatTurn(t, id, conv, "again") // nothing waits: a new run
			if next := wantEvents(t, events, askedText, ""); next == run {
				t.Fatalf("the message after the answer resumed run %s again", run)
			}
			wantHistory(t, c, conv, "user:hi|assistant:What is your name?|user:Ada|assistant:card|user:Juice|assistant:card|"+
				"user:coffee|assistant:Ada drinks Coffee|user:again|assistant:What is your name?")
		})
	}
}

// TestChatflowOtherAnswersAndForms: an option question that takes other
// answers (as Coze's do, through their other branch) takes a message that
// is none of its options; an input node's form streams as Coze's input
// card and takes "name: value" lines; the questions of a batch's items,
// asked side by side, are answered one message each, in item order.
func TestChatflowOtherAnswersAndForms(t *testing.T) {
	for _, b := range backends() {
		t.Run(b.name, func(t *testing.T) {
			c := newChatSetup(t, b)
			other := c.workflow(t, "other_flow", "asks", otherFlow, true)
			events, conv := c.chatTurn(t, other, "", "hi")
			wantEvents(t, events, askedCard, "")
			events, _ = c.chatTurn(t, other, conv, "Juice")
			if _, done := chatParts(t, events); strings.Join(completedOfType(done, "answer"), "|") != "Juice (-1)" {
				t.Fatalf("other answer = %v", names(events))
			}

			form := c.workflow(t, "form_flow", "asks", formFlow, true)
			events, conv = c.chatTurn(t, form, "", "hi")
			wantEvents(t, events, askedCard, "")
			info := questionCard(t, events[2])
			if got := string(mustJSON(info)); got != `{"card_type":"INPUT","input_card_data":[{"name":"who","required":true,"type":"string"},{"name":"age","required":false,"type":"integer"}]}` {
				t.Fatalf("input card = %s", got)
			}
			events, _ = c.chatTurn(t, form, conv, "age: 3") // who is required: asked again
			wantEvents(t, events, askedCard, "")
			events, _ = c.chatTurn(t, form, conv, "who: Ada\nage: 36")
			if _, done := chatParts(t, events); strings.Join(completedOfType(done, "answer"), "|") != "Ada is 36" {
				t.Fatalf("form answer = %v", names(events))
			}

			batch := c.workflow(t, "batch_flow", "asks", batchFlow, true)
			events, conv = c.chatTurn(t, batch, "", "hi")
			wantEvents(t, events, askedText, "")
			if m := events[3].obj(t); str(m, "content") != "Why tea?" {
				t.Fatalf("first question = %v", m)
			}
			events, _ = c.chatTurn(t, batch, conv, "warm")
			wantEvents(t, events, askedText, "")
			if m := events[3].obj(t); str(m, "content") != "Why cake?" {
				t.Fatalf("second question = %v", m)
			}
			events, _ = c.chatTurn(t, batch, conv, "sweet")
			if _, done := chatParts(t, events); strings.Join(completedOfType(done, "answer"), "|") != `["warm","sweet"]` {
				t.Fatalf("batch answer = %v", completedOfType(done, "answer"))
			}
		})
	}
}

// wantHistory checks a conversation's messages, oldest first; cards show
// as "card", JSON lists as "list".
func wantHistory(t *testing.T, c *chatSetup, conv, want string) {
	t.Helper()
	list := c.s.call(t, "POST", "/v1/conversation/message/list?conversation_id="+conv, bootstrapToken,
		map[string]any{"order": "asc", "limit": 50}).must(t, 200)
	msgs, _ := list.raw["data"].([]any)
	var got []string
	for _, m := range msgs {
		mm := m.(map[string]any)
		content := str(mm, "content")
		switch {
		case str(mm, "content_type") == "card":
			content = "card"
		case strings.HasPrefix(content, "["):
			content = "list"
		}
		got = append(got, str(mm, "role")+":"+content)
	}
	if strings.Join(got, "|") != want {
		t.Fatalf("history = %q, want %q", strings.Join(got, "|"), want)
	}
}
