package feishu

import (
	"context"
	"net/http"
	"strconv"
	"strings"
	"testing"
	"time"

	appchannel "github.com/pergola-ai/pergola/application/channel"
	"github.com/pergola-ai/pergola/domain/channel"
	"github.com/pergola-ai/pergola/infra/channels/delivery"
	"github.com/pergola-ai/pergola/infra/channels/feishu/feishufake"
	"github.com/pergola-ai/pergola/infra/egress"
)

const (
	testAppID  = "cli_test0001"
	testSecret = "app-secret-0001"
	testToken  = "verification-token-0001"
	testKey    = "encrypt-key-0001"
	botOpenID  = "ou_bot"
	testChat   = "oc_5ad11d72b830411d72b836c20" // a chat the bot is in
)

// rig is a Kind talking through the egress guard (loopback allowed) to
// a fake Open Platform, a channel pointed at it, and a settable clock.
type rig struct {
	fake  *feishufake.Server
	kind  *Kind
	ch    *channel.Channel
	sub   feishufake.Subscription
	now   time.Time
	waits []time.Duration
}

func newRig(t testing.TB, encrypted bool) *rig {
	t.Helper()
	guard, err := egress.New(egress.Config{Allow: []string{"127.0.0.1"}})
	if err != nil {
		t.Fatal(err)
	}
	r := &rig{now: time.Now(), sub: feishufake.Subscription{VerificationToken: testToken},
		fake: feishufake.New(t, feishufake.App{ID: testAppID, Secret: testSecret, BotOpenID: botOpenID, BotName: "Pergola",
			ChatIDs: []string{testChat}})}
	policy := delivery.DefaultPolicy()
	policy.Sleep = func(_ context.Context, d time.Duration) error { r.waits = append(r.waits, d); return nil }
	r.kind = New(guard.Client(), WithRetry(policy), WithClock(func() time.Time { return r.now }))
	r.ch = &channel.Channel{ID: 9, Kind: channel.KindFeishu, Settings: channel.Settings{
		"app_id": testAppID, "app_secret": testSecret, "verification_token": testToken, "api_base_url": r.fake.URL}}
	if encrypted {
		r.sub.EncryptKey = testKey
		r.ch.Settings["encrypt_key"] = testKey
	}
	return r
}

// inbound is body with headers, received now.
func inbound(body []byte, headers map[string]string) appchannel.Inbound {
	h := http.Header{}
	for k, v := range headers {
		h.Set(k, v)
	}
	return appchannel.Inbound{Header: h.Get, Body: body, Received: time.Now()}
}

// signedAt is body encrypted with key and signed at time at.
func signedAt(plain []byte, key string, at time.Time) appchannel.Inbound {
	body := feishufake.Encrypt(key, plain)
	ts := strconv.FormatInt(at.Unix(), 10)
	return inbound(body, map[string]string{TimestampHeader: ts, NonceHeader: "n0nce",
		SignatureHeader: feishufake.Sign(ts, "n0nce", key, body)})
}

// count is how many calls of the fake contain path.
func (r *rig) count(path string) int {
	n := 0
	for _, c := range r.fake.Calls() {
		if strings.Contains(c, path) {
			n++
		}
	}
	return n
}
