// Package feishu is the Feishu and Lark kinds of channel (one API, two
// hosts): it checks an app's credentials by fetching a tenant access
// token, verifies and decrypts event subscription v2 requests, answers
// their url_verification challenge, parses im.message.receive_v1 and
// answers with the reply API in plain text.
//
// It talks to the Open Platform with typed HTTP through the client it is
// given rather than github.com/larksuite/oapi-sdk-go/v3: that SDK keeps
// tenant tokens in a package-level cache and retries refused tokens on
// its own, where Pergola wants its own per-app cache, one refresh on a
// refused token and the runtime's retries with Retry-After.
//
// Event URLs are set in the app's developer console, so RegisterWebhook
// does nothing.
package feishu

import (
	"context"
	"errors"
	"net/http"
	"strings"
	"time"

	appchannel "github.com/pergola-ai/pergola/application/channel"
	"github.com/pergola-ai/pergola/domain/channel"
	"github.com/pergola-ai/pergola/domain/errs"
	"github.com/pergola-ai/pergola/infra/channels/delivery"
)

// MaxMessage is the length at which answers are split: Feishu refuses
// text messages over about 150 KB, and long ones read badly in a chat.
const MaxMessage = 4000

// Kind implements application/channel's Platform and Adapter for Feishu
// and Lark channels. It is safe for concurrent use.
type Kind struct {
	client *http.Client
	retry  delivery.Policy
	now    func() time.Time
	tokens *tokenCache
	bots   *botCache
}

// Kind is both steps of a Feishu or Lark channel.
var (
	_ appchannel.Platform = (*Kind)(nil)
	_ appchannel.Adapter  = (*Kind)(nil)
)

// Option tunes a Kind.
type Option func(*Kind)

// WithRetry sets how sends are retried (default delivery.DefaultPolicy).
func WithRetry(p delivery.Policy) Option { return func(k *Kind) { k.retry = p } }

// WithClock sets the clock used for token expiry and signature freshness.
func WithClock(now func() time.Time) Option { return func(k *Kind) { k.now = now } }

// New returns the Feishu/Lark kind sending every request through client,
// which should be the guarded egress client.
func New(client *http.Client, opts ...Option) *Kind {
	k := &Kind{client: client, retry: delivery.DefaultPolicy(), now: time.Now,
		tokens: newTokenCache(), bots: newBotCache()}
	for _, o := range opts {
		o(k)
	}
	return k
}

// Validate checks that app_id looks like an Open Platform app id
// (cli_…); errors are errs.FieldError naming settings.app_id.
func (k *Kind) Validate(s channel.Settings) error {
	if v, _ := s["app_id"].(string); !strings.HasPrefix(v, "cli_") {
		return errs.Invalid("settings.app_id", "must be the app's App ID, starting with cli_ (Credentials & Basic Info page)")
	}
	return nil
}

// CheckCredentials fetches a tenant access token with app_id and
// app_secret. A refusal is errs.ErrInvalid naming settings.app_secret
// with the platform's code and message, an api_base_url the egress guard
// refuses errs.ErrInvalid naming settings.api_base_url; no answer is
// errs.ErrUnavailable.
func (k *Kind) CheckCredentials(ctx context.Context, c *channel.Channel) error {
	_, err := k.token(ctx, c, true)
	err = delivery.Once(err)
	switch {
	case errors.Is(err, errs.ErrUnauthenticated):
		return errs.Invalid("settings.app_secret", "was refused: %v", err)
	case errors.Is(err, errs.ErrForbidden):
		return errs.Invalid("settings.api_base_url", "cannot be reached: %v", err)
	}
	return err
}

// RegisterWebhook does nothing: the event request URL is set in the
// app's developer console.
func (k *Kind) RegisterWebhook(context.Context, *channel.Channel, string) error { return nil }

// base is the channel's API base without a trailing slash.
func base(c *channel.Channel) string {
	b := setting(c, "api_base_url")
	if b == "" {
		b = channel.FeishuAPI
		if c.Kind == channel.KindLark {
			b = channel.LarkAPI
		}
	}
	return strings.TrimRight(b, "/")
}

func setting(c *channel.Channel, name string) string {
	v, _ := c.Settings[name].(string)
	return v
}
