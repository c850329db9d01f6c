package conversations

import (
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"github.com/pergola-ai/pergola/domain/conversation"
	"github.com/pergola-ai/pergola/domain/errs"
)

func TestContentText(t *testing.T) {
	ok := map[string]string{
		``:                                  "",
		`null`:                              "",
		`"hi"`:                              "hi",
		`[ {"type": "text", "text": "a"} ]`: `[{"type":"text","text":"a"}]`,
	}
	for in, want := range ok {
		got, err := contentText("content", json.RawMessage(in))
		if err != nil || got != want {
			t.Errorf("contentText(%s) = %q, %v; want %q", in, got, err, want)
		}
	}
	for _, in := range []string{`5`, `{"a":1}`, `true`} {
		_, err := contentText("messages[3].content", json.RawMessage(in))
		if !errors.Is(err, errs.ErrInvalid) || !strings.HasPrefix(err.Error(), "messages[3].content:") {
			t.Errorf("contentText(%s) error = %v; want one naming messages[3].content", in, err)
		}
	}
}

func TestLooseID(t *testing.T) {
	var body struct {
		A, B, C, D looseID
	}
	if err := json.Unmarshal([]byte(`{"A":"12","B":34,"C":"","D":null}`), &body); err != nil {
		t.Fatal(err)
	}
	for i, want := range []int64{12, 34, 0, 0} {
		got, err := []looseID{body.A, body.B, body.C, body.D}[i].parse("id")
		if err != nil || got != want {
			t.Errorf("id %d = %d, %v; want %d", i, got, err, want)
		}
	}
	if _, err := looseID("x1").parse("after_id"); err == nil || !strings.Contains(err.Error(), "after_id") {
		t.Errorf("bad id error = %v", err)
	}
}

func TestMessageWireShape(t *testing.T) {
	b, err := json.Marshal(NewMessage(&conversation.Message{ID: 5, ConversationID: 6, SectionID: 7, Role: "user"}))
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{`"id":"5"`, `"conversation_id":"6"`, `"chat_id":""`, `"bot_id":""`, `"section_id":"7"`, `"meta_data":{}`} {
		if !strings.Contains(string(b), want) {
			t.Errorf("%s lacks %s", b, want)
		}
	}
}
