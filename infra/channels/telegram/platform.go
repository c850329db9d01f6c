package telegram

import (
	"context"
	"errors"

	"github.com/pergola-ai/pergola/domain/channel"
	"github.com/pergola-ai/pergola/domain/errs"
	"github.com/pergola-ai/pergola/infra/channels/delivery"
)

// botUser is the bot as getMe describes it: its id and @username are
// how group messages mention it or reply to it.
type botUser struct {
	ID       int64  `json:"id"`
	IsBot    bool   `json:"is_bot"`
	Username string `json:"username"`
}

// CheckCredentials asks getMe whether bot_token works and remembers the
// bot's username for the group mention rule. A refused token is
// errs.ErrInvalid naming settings.bot_token with Telegram's words, an
// api_base_url the egress guard refuses errs.ErrInvalid naming
// settings.api_base_url; no answer is errs.ErrUnavailable.
func (k *Kind) CheckCredentials(ctx context.Context, c *channel.Channel) error {
	_, err := k.me(ctx, c)
	return asSettingError(err)
}

// RegisterWebhook calls setWebhook with the channel's URL and its
// secret_token, so Telegram posts message updates there, each carrying
// the secret. A refused token is errs.ErrInvalid naming
// settings.bot_token; a URL Telegram refuses is errs.ErrInvalid with
// Telegram's words.
func (k *Kind) RegisterWebhook(ctx context.Context, c *channel.Channel, webhookURL string) error {
	in := map[string]any{
		"url":             webhookURL,
		"secret_token":    setting(c, "secret_token"),
		"allowed_updates": []string{"message"},
	}
	return asSettingError(delivery.Once(k.api(c).call(ctx, "setWebhook", in, nil)))
}

// me returns the bot behind a channel's token, asking getMe once per
// token and API base.
func (k *Kind) me(ctx context.Context, c *channel.Channel) (botUser, error) {
	a := k.api(c)
	key := a.base + "\x00" + a.token
	k.mu.Lock()
	u, ok := k.bots[key]
	k.mu.Unlock()
	if ok {
		return u, nil
	}
	if err := delivery.Once(a.call(ctx, "getMe", struct{}{}, &u)); err != nil {
		return botUser{}, err
	}
	k.mu.Lock()
	k.bots[key] = u
	k.mu.Unlock()
	return u, nil
}

// asSettingError turns a refused token, or an API base the egress guard
// refuses, into the field error the channel API shows its builder.
func asSettingError(err error) error {
	switch {
	case errors.Is(err, errs.ErrUnauthenticated):
		return errs.Invalid("settings.bot_token", "was refused by Telegram: %v", err)
	case errors.Is(err, errs.ErrForbidden):
		return errs.Invalid("settings.api_base_url", "cannot be reached: %v", err)
	}
	return err
}
