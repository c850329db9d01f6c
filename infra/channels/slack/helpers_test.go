package slack

import (
	"context"
	"net/http"
	"strconv"
	"testing"
	"time"

	appchannel "github.com/pergola-ai/pergola/application/channel"
	"github.com/pergola-ai/pergola/domain/channel"
	"github.com/pergola-ai/pergola/infra/channels/delivery"
	"github.com/pergola-ai/pergola/infra/channels/slack/slackfake"
	"github.com/pergola-ai/pergola/infra/egress"
)

const (
	testToken   = "xoxb-1-fake-token"
	testSigning = "8f742231b10e8888abcd99yyyzzz85a5"
	botUserID   = "UBOT1"
)

// rig is a Kind talking through the egress guard (loopback allowed) to
// a fake Slack, and a channel pointed at it.
type rig struct {
	fake   *slackfake.Server
	kind   *Kind
	ch     *channel.Channel
	client *http.Client
	waits  []time.Duration
}

func newRig(t *testing.T) *rig {
	t.Helper()
	guard, err := egress.New(egress.Config{Allow: []string{"127.0.0.1"}})
	if err != nil {
		t.Fatal(err)
	}
	r := &rig{fake: slackfake.New(t, slackfake.Bot{Token: testToken, UserID: botUserID, BotID: "BBOT1", TeamID: "T1"})}
	r.client = guard.Client()
	policy := delivery.DefaultPolicy()
	policy.Sleep = func(_ context.Context, d time.Duration) error { r.waits = append(r.waits, d); return nil }
	r.kind = New(r.client, WithRetry(policy))
	r.ch = &channel.Channel{ID: 8, Kind: channel.KindSlack, Settings: channel.Settings{
		"bot_token": testToken, "signing_secret": testSigning, "api_base_url": r.fake.APIURL()}}
	return r
}

// signed is body as Slack sends it at time at, signed with secret.
func signed(body, secret string, at time.Time) appchannel.Inbound {
	ts := at.Unix()
	h := http.Header{}
	h.Set(TimestampHeader, strconv.FormatInt(ts, 10))
	h.Set(SignatureHeader, slackfake.Sign(secret, ts, []byte(body)))
	return appchannel.Inbound{Header: h.Get, Body: []byte(body), Received: time.Now()}
}
