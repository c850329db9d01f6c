// Package line is the LINE kind of channel (Messaging API): it checks a
// channel access token with the bot info endpoint, registers the
// channel's webhook URL, verifies X-Line-Signature, parses message
// events and answers with the event's reply token, falling back to a
// push message when the token has expired. It talks to LINE through
// github.com/line/line-bot-sdk-go/v8 pointed at the channel's
// api_base_url and the client it is given.
package line

import (
	"context"
	"errors"
	"net/http"
	"strings"

	"github.com/line/line-bot-sdk-go/v8/linebot/messaging_api"

	appchannel "github.com/pergola-ai/pergola/application/channel"
	"github.com/pergola-ai/pergola/domain/channel"
	"github.com/pergola-ai/pergola/domain/errs"
	"github.com/pergola-ai/pergola/infra/channels/delivery"
)

// LINE's limits on one send: 5,000 characters per text message and 5
// messages per reply or push call.
const (
	MaxMessage  = 5000
	MaxMessages = 5
)

// Kind implements application/channel's Platform and Adapter for LINE
// channels. It is safe for concurrent use.
type Kind struct {
	client *http.Client
	retry  delivery.Policy
}

// Kind is both steps of a LINE channel.
var (
	_ appchannel.Platform = (*Kind)(nil)
	_ appchannel.Adapter  = (*Kind)(nil)
)

// Option tunes a Kind.
type Option func(*Kind)

// WithRetry sets how sends are retried (default delivery.DefaultPolicy).
func WithRetry(p delivery.Policy) Option { return func(k *Kind) { k.retry = p } }

// New returns the LINE kind sending every request through client, which
// should be the guarded egress client.
func New(client *http.Client, opts ...Option) *Kind {
	k := &Kind{client: client, retry: delivery.DefaultPolicy()}
	for _, o := range opts {
		o(k)
	}
	return k
}

// Validate accepts the settings: the spec already requires both secrets.
func (k *Kind) Validate(channel.Settings) error { return nil }

// CheckCredentials asks GET /v2/bot/info whether channel_access_token
// works. A refused token is errs.ErrInvalid naming
// settings.channel_access_token with LINE's message, an api_base_url the
// egress guard refuses errs.ErrInvalid naming settings.api_base_url; no
// answer is errs.ErrUnavailable.
func (k *Kind) CheckCredentials(ctx context.Context, c *channel.Channel) error {
	err := k.call(ctx, c, "bot info", func(api *messaging_api.MessagingApiAPI) (*http.Response, error) {
		res, _, err := api.GetBotInfoWithHttpInfo()
		return res, err
	})
	return settingError(delivery.Once(err))
}

// RegisterWebhook sets the channel's webhook endpoint URL with PUT
// /v2/bot/channel/webhook/endpoint; a refused token or URL is
// errs.ErrInvalid naming the setting, with LINE's message.
func (k *Kind) RegisterWebhook(ctx context.Context, c *channel.Channel, webhookURL string) error {
	err := k.call(ctx, c, "set webhook endpoint", func(api *messaging_api.MessagingApiAPI) (*http.Response, error) {
		res, _, err := api.SetWebhookEndpointWithHttpInfo(&messaging_api.SetWebhookEndpointRequest{Endpoint: webhookURL})
		return res, err
	})
	err = delivery.Once(err)
	var le *apiError
	if errors.As(err, &le) && le.status == http.StatusBadRequest {
		return errs.Invalid("webhook_url", "was refused by LINE: %s (LINE needs a public https URL; set PERGOLA_PUBLIC_URL)", le.message)
	}
	return settingError(err)
}

func settingError(err error) error {
	switch {
	case errors.Is(err, errs.ErrUnauthenticated):
		return errs.Invalid("settings.channel_access_token", "was refused by LINE: %v", err)
	case errors.Is(err, errs.ErrForbidden):
		return errs.Invalid("settings.api_base_url", "cannot be reached: %v", err)
	}
	return err
}

// call makes one request through a client of the channel and translates
// its failure.
func (k *Kind) call(ctx context.Context, c *channel.Channel, what string, do func(*messaging_api.MessagingApiAPI) (*http.Response, error)) error {
	api, err := k.api(c)
	if err != nil {
		return err
	}
	res, err := do(api.WithContext(ctx))
	return translate(what, res, err)
}

// api returns a Messaging API client for the channel.
func (k *Kind) api(c *channel.Channel) (*messaging_api.MessagingApiAPI, error) {
	base := setting(c, "api_base_url")
	if base == "" {
		base = channel.LINEAPI
	}
	token := setting(c, "channel_access_token")
	if token == "" {
		return nil, errs.Unauthenticated("the channel has no channel_access_token")
	}
	api, err := messaging_api.NewMessagingApiAPI(token,
		messaging_api.WithEndpoint(strings.TrimRight(base, "/")),
		messaging_api.WithHTTPClient(k.client))
	if err != nil {
		return nil, errs.Invalid("settings.api_base_url", "is not a URL: %v", err)
	}
	return api, nil
}

func setting(c *channel.Channel, name string) string {
	v, _ := c.Settings[name].(string)
	return v
}
