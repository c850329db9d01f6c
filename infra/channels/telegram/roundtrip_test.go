package telegram

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	appchannel "github.com/pergola-ai/pergola/application/channel"
	"github.com/pergola-ai/pergola/domain/errs"
)

// echoEndpoint is a stand-in for Pergola's inbound endpoint: it hands
// each request to Receive and answers every event with Deliver.
func echoEndpoint(t *testing.T, r *rig) *httptest.Server {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
		body, _ := io.ReadAll(req.Body)
		re, err := r.kind.Receive(req.Context(), r.ch, appchannel.Inbound{Header: req.Header.Get, Body: body})
		if errors.Is(err, errs.ErrUnauthenticated) {
			http.Error(w, err.Error(), http.StatusUnauthorized)
			return
		}
		for _, e := range re.Events {
			if err := r.kind.Deliver(req.Context(), r.ch, e.Reply, "You said: **"+e.Text+"**"); err != nil {
				t.Error(err)
			}
		}
	}))
	t.Cleanup(srv.Close)
	return srv
}

func TestAnUpdatePushedToTheRegisteredWebhookIsAnswered(t *testing.T) {
	r := newRig(t)
	r.fake.AllowHTTPWebhook = true
	hook := echoEndpoint(t, r)
	if err := r.kind.RegisterWebhook(context.Background(), r.ch, hook.URL+"/channels/telegram/7"); err != nil {
		t.Fatal(err)
	}
	var update any
	_ = json.Unmarshal([]byte(privateUpdate), &update)
	status, err := r.fake.Push(context.Background(), http.DefaultClient, update)
	if err != nil || status != http.StatusOK {
		t.Fatalf("status=%d err=%v", status, err)
	}
	sent := r.fake.Sent()
	if len(sent) != 1 || sent[0].Text != "You said: <b>what is pergola?</b>" || sent[0].ChatID != 42 || sent[0].ReplyTo != 11 {
		t.Fatalf("sent = %+v", sent)
	}
	resp, err := http.Post(hook.URL, "application/json", strings.NewReader(privateUpdate))
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusUnauthorized || len(r.fake.Sent()) != 1 {
		t.Fatalf("an update without the secret got %d and %d answers", resp.StatusCode, len(r.fake.Sent()))
	}
}

func TestAnswersStayInTheForumTopic(t *testing.T) {
	r := newRig(t)
	body := `{"update_id":800,"message":{"message_id":9,"message_thread_id":77,"is_topic_message":true,
	 "from":{"id":43,"is_bot":false},"chat":{"id":-100300,"type":"supergroup","is_forum":true},
	 "text":"@PergolaTestBot hi","entities":[{"type":"mention","offset":0,"length":15}]}}`
	re, err := r.kind.Receive(context.Background(), r.ch, inbound(body, testSecret))
	if err != nil || len(re.Events) != 1 || re.Events[0].ConversationKey != "-100300:77" {
		t.Fatalf("events=%+v err=%v", re.Events, err)
	}
	if err := r.kind.Deliver(context.Background(), r.ch, re.Events[0].Reply, strings.Repeat("word ", 2000)); err != nil {
		t.Fatal(err)
	}
	sent := r.fake.Sent()
	if len(sent) != 3 {
		t.Fatalf("sent %d messages, want 3", len(sent))
	}
	for i, m := range sent {
		if m.ThreadID != 77 || m.ChatID != -100300 {
			t.Fatalf("message %d went to chat %d topic %d", i, m.ChatID, m.ThreadID)
		}
	}
}

func TestDeliverFallsBackToPlainTextWhenTelegramCannotParse(t *testing.T) {
	r := newRig(t)
	r.fake.FailNextWith(http.StatusBadRequest, "Bad Request: can't parse entities: unsupported start tag")
	if err := r.kind.Deliver(context.Background(), r.ch, privateReply, "**hi** & bye"); err != nil {
		t.Fatal(err)
	}
	sent := r.fake.Sent()
	if len(sent) != 1 || sent[0].ParseMode != "" || sent[0].Text != "**hi** & bye" {
		t.Fatalf("sent = %+v", sent)
	}
}
