package telegram

import (
	"context"
	"net/http"
	"testing"
	"time"

	appchannel "github.com/pergola-ai/pergola/application/channel"
	"github.com/pergola-ai/pergola/domain/channel"
	"github.com/pergola-ai/pergola/infra/channels/delivery"
	"github.com/pergola-ai/pergola/infra/channels/telegram/telegramfake"
	"github.com/pergola-ai/pergola/infra/egress"
)

const (
	testToken  = "123456:AAHfakeTokenForTests_x-y"
	testSecret = "s3cret-token_for_tests"
	botID      = 123456
)

// rig is a Kind talking through the egress guard (loopback allowed) to a
// fake Bot API, and a channel pointed at it.
type rig struct {
	fake   *telegramfake.Server
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
	r := &rig{fake: telegramfake.New(t, telegramfake.Bot{ID: botID, Token: testToken, Username: "PergolaTestBot"})}
	r.client = guard.Client()
	policy := delivery.DefaultPolicy()
	policy.Sleep = func(_ context.Context, d time.Duration) error { r.waits = append(r.waits, d); return nil }
	r.kind = New(r.client, WithRetry(policy))
	r.ch = &channel.Channel{ID: 7, Kind: channel.KindTelegram, Settings: channel.Settings{
		"bot_token": testToken, "secret_token": testSecret, "api_base_url": r.fake.URL}}
	return r
}

// inbound is an update as Telegram posts it, with secret as the header.
func inbound(body, secret string) appchannel.Inbound {
	return appchannel.Inbound{
		Header: func(name string) string {
			if http.CanonicalHeaderKey(name) == http.CanonicalHeaderKey(SecretHeader) {
				return secret
			}
			return ""
		},
		Body:     []byte(body),
		Received: time.Now(),
	}
}
