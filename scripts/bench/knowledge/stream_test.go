package main

import (
	"strings"
	"testing"
)

const recalledStream = `event: conversation.chat.created
data: {"id":"7","conversation_id":"42","status":"created"}

event: conversation.message.completed
data: {"type":"verbose","content":"{\"msg_type\":\"knowledge_recall\",\"data\":\"{}\"}"}

event: conversation.message.delta
data: {"type":"answer","content":"echo: "}

event: conversation.message.delta
data: {"type":"answer","content":"garden robot"}

event: conversation.chat.completed
data: {"id":"7","status":"completed"}

event: done
data: "[DONE]"
`

// TestReadStream joins the answer, keeps the conversation, sees the
// knowledge_recall message and accepts the stream's end.
func TestReadStream(t *testing.T) {
	st, err := readStream(strings.NewReader(recalledStream))
	if err != nil || st.answer != "echo: garden robot" || st.conv != "42" || !st.recalled || checkEnd(st.events) != nil {
		t.Fatalf("readStream = %+v, %v", st, err)
	}
	plain := strings.Replace(recalledStream, "knowledge_recall", "other", 1)
	if st, _ := readStream(strings.NewReader(plain)); st.recalled {
		t.Fatal("a verbose message of another msg_type counted as a recall")
	}
	cut := recalledStream[:strings.Index(recalledStream, "event: conversation.chat.completed")]
	if st, _ := readStream(strings.NewReader(cut)); checkEnd(st.events) == nil {
		t.Fatal("a stream cut before chat.completed was accepted")
	}
	failed := strings.Replace(recalledStream, "conversation.chat.completed", "conversation.chat.failed", 1)
	if _, err := readStream(strings.NewReader(failed)); err == nil {
		t.Fatal("a failed chat was not an error")
	}
}

// TestCorpus: a chunk is generated again identically, a document is its
// chunks separated by blank lines, and a query quotes a chunk.
func TestCorpus(t *testing.T) {
	c := newCorpus(1, 60)
	doc := c.document(3, 4)
	parts := strings.Split(doc, "\n\n")
	if len(parts) != 4 || parts[2] != c.chunk(3, 2) || len(strings.Fields(parts[0])) != 60 {
		t.Fatalf("document 3 = %q", doc)
	}
	if c.chunk(3, 2) == c.chunk(3, 1) {
		t.Fatal("two chunks are the same text")
	}
}
