package slack

import (
	"context"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	appchannel "github.com/pergola-ai/pergola/application/channel"
	"github.com/pergola-ai/pergola/domain/errs"
	"github.com/pergola-ai/pergola/infra/channels/slack/slackfake"
)

// echoEndpoint is a stand-in for Pergola's inbound endpoint: it hands
// each request to Receive, writes the reaction and answers every event
// with Deliver.
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
		_, _ = w.Write(re.Body)
	}))
	t.Cleanup(srv.Close)
	return srv
}

func TestASignedMentionIsAnsweredInItsThread(t *testing.T) {
	r := newRig(t)
	hook := echoEndpoint(t, r)
	ctx := context.Background()
	challenge := `{"type":"url_verification","challenge":"c-123","token":"x"}`
	status, body, err := slackfake.SendEvent(ctx, http.DefaultClient, hook.URL, testSigning, []byte(challenge))
	if err != nil || status != http.StatusOK || string(body) != `{"challenge":"c-123"}` {
		t.Fatalf("challenge: status=%d body=%s err=%v", status, body, err)
	}
	mention := callback(`{"type":"app_mention","channel":"C9","user":"U42","text":"<@UBOT1> hello","ts":"1700000001.000200"}`)
	status, _, err = slackfake.SendEvent(ctx, http.DefaultClient, hook.URL, testSigning, []byte(mention))
	if err != nil || status != http.StatusOK {
		t.Fatalf("status=%d err=%v", status, err)
	}
	got := r.fake.Posted()
	if len(got) != 1 || got[0].Text != "You said: *hello*" || got[0].Channel != "C9" || got[0].ThreadTS != "1700000001.000200" {
		t.Fatalf("posted = %+v", got)
	}
	status, _, _ = slackfake.SendEvent(ctx, http.DefaultClient, hook.URL, "not-the-signing-secret", []byte(mention))
	resp, err := http.Post(hook.URL, "application/json", strings.NewReader(mention))
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if status != http.StatusUnauthorized || resp.StatusCode != http.StatusUnauthorized || len(r.fake.Posted()) != 1 {
		t.Fatalf("forged: %d, unsigned: %d, answers: %d", status, resp.StatusCode, len(r.fake.Posted()))
	}
}
