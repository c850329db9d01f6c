package main

import (
	"bufio"
	"strings"
	"testing"
)

const recorded = `event: conversation.chat.created
data: {"id":"7","conversation_id":"42","status":"created"}

event: conversation.message.delta
data: {"type":"answer","content":"echo: "}

event: conversation.message.delta
data: {"type":"answer","content":"hello"}

event: conversation.message.completed
data: {"type":"verbose","content":"{}"}

event: conversation.chat.completed
data: {"id":"7","status":"completed"}

event: done
data: "[DONE]"
`

// TestReadStream joins the answer's deltas, keeps the conversation and
// accepts a stream that ends with chat.completed then done.
func TestReadStream(t *testing.T) {
	c := &conv{bot: "1"}
	deltas := 0
	answer, events, err := sseReader{sc: bufio.NewScanner(strings.NewReader(recorded))}.read(func() { deltas++ }, c)
	if err != nil || answer != "echo: hello" || deltas != 2 || c.id != "42" {
		t.Fatalf("answer %q, %d deltas, conversation %q, %v", answer, deltas, c.id, err)
	}
	if err := checkEnd(events, answer, "echo: hello"); err != nil {
		t.Fatal(err)
	}
	if err := checkEnd(events[:len(events)-1], answer, "echo: hello"); err == nil {
		t.Fatal("a stream without done passed")
	}
	if err := checkEnd(events, answer, "tool said: "); err == nil {
		t.Fatal("a wrong answer passed")
	}
	failed := strings.Replace(recorded, "conversation.chat.completed", "conversation.chat.failed", 1)
	if _, _, err := (sseReader{sc: bufio.NewScanner(strings.NewReader(failed))}).read(func() {}, c); err == nil {
		t.Fatal("a failed chat passed")
	}
}
