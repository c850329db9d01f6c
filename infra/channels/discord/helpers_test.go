package discord

import (
	"context"
	"net/http"
	"testing"
	"time"

	appchannel "github.com/pergola-ai/pergola/application/channel"
	"github.com/pergola-ai/pergola/domain/channel"
	"github.com/pergola-ai/pergola/infra/channels/delivery"
	"github.com/pergola-ai/pergola/infra/channels/discord/discordfake"
	"github.com/pergola-ai/pergola/infra/egress"
)

const (
	testAppID = "1100000000000000001"
	testToken = "MTEwMDAw.unit-test.bot-token"
	// testChannel is the channel the fake lets the bot post in.
	testChannel = "1100000000000000009"
)

// rig is a Kind talking through the egress guard (loopback allowed) to
// a fake Discord, and a channel pointed at it.
type rig struct {
	fake  *discordfake.Server
	kind  *Kind
	ch    *channel.Channel
	waits []time.Duration
}

func newRig(t *testing.T) *rig {
	t.Helper()
	guard, err := egress.New(egress.Config{Allow: []string{"127.0.0.1"}})
	if err != nil {
		t.Fatal(err)
	}
	r := &rig{fake: discordfake.New(t, discordfake.App{ApplicationID: testAppID, BotToken: testToken, BotUserID: "1100000000000000002",
		ChannelIDs: []string{testChannel}})}
	policy := delivery.DefaultPolicy()
	policy.Sleep = func(_ context.Context, d time.Duration) error { r.waits = append(r.waits, d); return nil }
	r.kind = New(guard.Client(), WithRetry(policy))
	r.ch = &channel.Channel{ID: 9, Kind: channel.KindDiscord, Settings: channel.Settings{"application_id": testAppID,
		"public_key": r.fake.PublicKey(), "bot_token": testToken, "api_base_url": r.fake.APIURL()}}
	return r
}

// inbound is body as Discord sends it with headers, arrived now.
func inbound(body []byte, headers map[string]string) appchannel.Inbound {
	h := http.Header{}
	for k, v := range headers {
		h.Set(k, v)
	}
	return appchannel.Inbound{Header: h.Get, Body: body, Received: time.Now()}
}
