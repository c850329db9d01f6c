// Package slack is the Slack kind of channel: it checks a bot token
// with auth.test, verifies the Events API's signed requests, answers its
// url_verification challenge, parses direct messages and mentions, and
// answers in the thread with chat.postMessage in Slack's mrkdwn. It
// talks to Slack through github.com/slack-go/slack pointed at the
// channel's api_base_url and the client it is given.
//
// Slack has no API to set an app's Events request URL: the builder pastes
// the channel's webhook URL into the app's Event Subscriptions page, so
// RegisterWebhook does nothing.
package slack

import (
	"context"
	"errors"
	"net/http"
	"strings"

	"github.com/slack-go/slack"

	appchannel "github.com/pergola-ai/pergola/application/channel"
	"github.com/pergola-ai/pergola/domain/channel"
	"github.com/pergola-ai/pergola/domain/errs"
	"github.com/pergola-ai/pergola/infra/channels/delivery"
)

// MaxMessage is the length at which answers are split. Slack truncates
// at 40,000 characters but advises keeping messages under 4,000.
const MaxMessage = 4000

// Kind implements application/channel's Platform and Adapter for Slack
// channels. It is safe for concurrent use.
type Kind struct {
	client *http.Client
	retry  delivery.Policy
}

// Kind is both steps of a Slack channel.
var (
	_ appchannel.Platform = (*Kind)(nil)
	_ appchannel.Adapter  = (*Kind)(nil)
)

// Option tunes a Kind.
type Option func(*Kind)

// WithRetry sets how sends are retried (default delivery.DefaultPolicy).
func WithRetry(p delivery.Policy) Option { return func(k *Kind) { k.retry = p } }

// New returns the Slack kind sending every request through client, which
// should be the guarded egress client.
func New(client *http.Client, opts ...Option) *Kind {
	k := &Kind{client: client, retry: delivery.DefaultPolicy()}
	for _, o := range opts {
		o(k)
	}
	return k
}

// Validate checks that bot_token is a bot token (xoxb-…), the kind the
// Events API and chat.postMessage need; errors are errs.FieldError
// naming settings.bot_token.
func (k *Kind) Validate(s channel.Settings) error {
	if v, _ := s["bot_token"].(string); !strings.HasPrefix(v, "xoxb-") {
		return errs.Invalid("settings.bot_token", "must be the app's Bot User OAuth Token, starting with xoxb- (OAuth & Permissions page)")
	}
	return nil
}

// CheckCredentials asks auth.test whether bot_token works. A refused
// token is errs.ErrInvalid naming settings.bot_token with Slack's error
// code (invalid_auth, token_revoked …), an api_base_url the egress guard
// refuses errs.ErrInvalid naming settings.api_base_url; no answer is
// errs.ErrUnavailable.
func (k *Kind) CheckCredentials(ctx context.Context, c *channel.Channel) error {
	_, err := k.api(c).AuthTestContext(ctx)
	err = delivery.Once(translate("auth.test", err))
	switch {
	case isAuth(err):
		return errs.Invalid("settings.bot_token", "was refused by Slack: %v", err)
	case errors.Is(err, errs.ErrForbidden):
		return errs.Invalid("settings.api_base_url", "cannot be reached: %v", err)
	}
	return err
}

// RegisterWebhook does nothing: Slack's Events URL is set in the app's
// settings, not through the API.
func (k *Kind) RegisterWebhook(context.Context, *channel.Channel, string) error { return nil }

// api returns a Slack Web API client for the channel.
func (k *Kind) api(c *channel.Channel) *slack.Client {
	base := setting(c, "api_base_url")
	if base == "" {
		base = channel.SlackAPI
	}
	return slack.New(setting(c, "bot_token"),
		slack.OptionAPIURL(strings.TrimRight(base, "/")+"/"),
		slack.OptionHTTPClient(k.client))
}

func setting(c *channel.Channel, name string) string {
	v, _ := c.Settings[name].(string)
	return v
}
