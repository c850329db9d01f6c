package line

import (
	"context"
	"encoding/json"
	"net/http"
	"testing"
	"time"

	appchannel "github.com/pergola-ai/pergola/application/channel"
	"github.com/pergola-ai/pergola/domain/channel"
	"github.com/pergola-ai/pergola/infra/channels/delivery"
	"github.com/pergola-ai/pergola/infra/channels/line/linefake"
	"github.com/pergola-ai/pergola/infra/egress"
)

const (
	testToken  = "line-channel-access-token-0001"
	testSecret = "0123456789abcdef0123456789abcdef"
	botUserID  = "Ubot000000000000000000000000000001"
)

// rig is a Kind talking through the egress guard (loopback allowed) to
// a fake LINE, and a channel pointed at it.
type rig struct {
	fake  *linefake.Server
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
	r := &rig{fake: linefake.New(t, linefake.Bot{Token: testToken, Secret: testSecret, UserID: botUserID})}
	policy := delivery.DefaultPolicy()
	policy.Sleep = func(_ context.Context, d time.Duration) error { r.waits = append(r.waits, d); return nil }
	r.kind = New(guard.Client(), WithRetry(policy))
	r.ch = &channel.Channel{ID: 9, Kind: channel.KindLINE, Settings: channel.Settings{
		"channel_secret": testSecret, "channel_access_token": testToken, "api_base_url": r.fake.URL}}
	return r
}

// signed is body as LINE sends it, with signature as X-Line-Signature.
func signed(body []byte, signature string) appchannel.Inbound {
	h := http.Header{}
	if signature != "" {
		h.Set(SignatureHeader, signature)
	}
	return appchannel.Inbound{Header: h.Get, Body: body, Received: time.Now()}
}

// receive sends events to the rig's kind signed with its secret.
func (r *rig) receive(t *testing.T, events ...map[string]any) appchannel.Reaction {
	t.Helper()
	body := r.fake.Body(events...)
	re, err := r.kind.Receive(context.Background(), r.ch, signed(body, linefake.Signature(testSecret, body)))
	if err != nil {
		t.Fatalf("receive: %v", err)
	}
	return re
}

func replyOf(t *testing.T, raw json.RawMessage) replyTo {
	t.Helper()
	var to replyTo
	if err := json.Unmarshal(raw, &to); err != nil {
		t.Fatal(err)
	}
	return to
}
