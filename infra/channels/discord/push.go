package discord

import (
	"encoding/json"
	"net/url"
	"regexp"

	appchannel "github.com/pergola-ai/pergola/application/channel"
	"github.com/pergola-ai/pergola/domain/errs"
)

// Kind posts scheduled messages into the channels its bot can see.
var _ appchannel.Pusher = (*Kind)(nil)

// snowflake is a Discord id: a decimal number of 17 to 20 digits.
var snowflake = regexp.MustCompile(`^[1-9][0-9]{16,19}$`)

// PushTo addresses a new message, not an interaction's answer, to the
// Discord channel chatID (a channel id, as "Copy Channel ID" gives it
// with developer mode on); the key is the one the channel's slash
// commands have, its channel id. The bot must be able to send messages
// in the channel.
func (k *Kind) PushTo(chatID string) (json.RawMessage, string, error) {
	if !snowflake.MatchString(chatID) {
		return nil, "", errs.Invalid("chat_id", "must be a Discord channel id (17 to 20 digits, from \"Copy Channel ID\" with developer mode on); got %q", chatID)
	}
	reply, err := json.Marshal(replyTo{ChannelID: chatID})
	return reply, chatID, err
}

// route is where the parts of an answer go.
type route struct {
	// base is /webhooks/{application_id}/{token} for an interaction, or
	// /channels/{channel_id} for a channel the bot posts in.
	base string
	// bot is true for a channel: the calls authenticate as the bot.
	bot bool
}

// routeOf is the route of reply: an interaction's webhook, or a channel.
func routeOf(reply json.RawMessage) (route, error) {
	var to replyTo
	if err := json.Unmarshal(reply, &to); err == nil {
		switch {
		case to.ApplicationID != "" && to.Token != "":
			return route{base: "/webhooks/" + url.PathEscape(to.ApplicationID) + "/" + url.PathEscape(to.Token)}, nil
		case to.Token == "" && snowflake.MatchString(to.ChannelID):
			return route{base: "/channels/" + to.ChannelID, bot: true}, nil
		}
	}
	return route{}, errs.Invalid("reply", "must be a Discord reply target {application_id, token} or {channel_id}")
}
