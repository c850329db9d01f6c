package slack

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"regexp"
	"strings"

	"github.com/slack-go/slack"

	appchannel "github.com/pergola-ai/pergola/application/channel"
	"github.com/pergola-ai/pergola/domain/channel"
	"github.com/pergola-ai/pergola/domain/errs"
)

// The headers Slack signs its requests with.
const (
	SignatureHeader = "X-Slack-Signature"
	TimestampHeader = "X-Slack-Request-Timestamp"
)

// envelope is the part of an Events API request the channel reads.
type envelope struct {
	Type           string          `json:"type"`
	Challenge      string          `json:"challenge"`
	EventID        string          `json:"event_id"`
	Event          *event          `json:"event"`
	Authorizations []authorization `json:"authorizations"`
}

type authorization struct {
	UserID string `json:"user_id"`
}

type event struct {
	Type        string `json:"type"`
	User        string `json:"user"`
	Text        string `json:"text"`
	Channel     string `json:"channel"`
	ChannelType string `json:"channel_type"`
	TS          string `json:"ts"`
	ThreadTS    string `json:"thread_ts"`
	BotID       string `json:"bot_id"`
	Subtype     string `json:"subtype"`
}

// replyTo is where an answer goes: a channel and, for threads, the
// thread's ts.
type replyTo struct {
	Channel  string `json:"channel"`
	ThreadTS string `json:"thread_ts,omitempty"`
}

// Receive verifies X-Slack-Signature (v0 HMAC-SHA256 of
// "v0:{timestamp}:{body}" with the channel's signing_secret, timestamp
// within 5 minutes; errs.ErrUnauthenticated otherwise), answers
// url_verification with its challenge, and parses event_callback
// requests: direct messages (message, channel_type im) and app_mention,
// the mention of the bot removed. Events of bots, edits and other
// subtypes give no event; a shared file without text gives a NotText
// one. A body that is not an Events API request is errs.ErrInvalid.
func (k *Kind) Receive(_ context.Context, c *channel.Channel, in appchannel.Inbound) (appchannel.Reaction, error) {
	if err := verify(setting(c, "signing_secret"), in); err != nil {
		return appchannel.Reaction{}, err
	}
	var env envelope
	if err := json.Unmarshal(in.Body, &env); err != nil || env.Type == "" {
		return appchannel.Reaction{}, errs.Invalid("body", "must be a Slack Events API request with a type")
	}
	switch env.Type {
	case "url_verification":
		body, _ := json.Marshal(map[string]string{"challenge": env.Challenge})
		return appchannel.Reaction{ContentType: "application/json", Body: body}, nil
	case "event_callback":
		return parseCallback(env)
	}
	return appchannel.Reaction{}, nil
}

// verify checks the request's signature and freshness.
func verify(secret string, in appchannel.Inbound) error {
	h := http.Header{}
	h.Set(SignatureHeader, in.Header(SignatureHeader))
	h.Set(TimestampHeader, in.Header(TimestampHeader))
	sv, err := slack.NewSecretsVerifier(h, secret)
	if err == nil {
		_, _ = sv.Write(in.Body)
		err = sv.Ensure()
	}
	switch {
	case err == nil:
		return nil
	case errors.Is(err, slack.ErrMissingHeaders):
		return errs.Unauthenticated("missing the %s or %s header", SignatureHeader, TimestampHeader)
	case errors.Is(err, slack.ErrExpiredTimestamp):
		return errs.Unauthenticated("%s is more than 5 minutes from now; the request is stale or replayed", TimestampHeader)
	}
	return errs.Unauthenticated("%s does not match the request signed with the channel's signing_secret", SignatureHeader)
}

func parseCallback(env envelope) (appchannel.Reaction, error) {
	if env.EventID == "" || env.Event == nil {
		return appchannel.Reaction{}, errs.Invalid("body", "an event_callback must carry event_id and event")
	}
	e := env.Event
	if !answerable(e, botUser(env)) {
		return appchannel.Reaction{}, nil
	}
	to := replyTo{Channel: e.Channel, ThreadTS: e.ThreadTS}
	if e.Type == "app_mention" && to.ThreadTS == "" {
		to.ThreadTS = e.TS
	}
	key := to.Channel
	if to.ThreadTS != "" {
		key += ":" + to.ThreadTS
	}
	reply, _ := json.Marshal(to)
	text := plainText(stripMention(e.Text, botUser(env)))
	return appchannel.Reaction{Events: []appchannel.Event{{
		ID: env.EventID, UserID: e.User, ConversationKey: key,
		Text: text, NotText: text == "", Reply: reply,
	}}}, nil
}

// answerable says whether the event is a person writing to the bot.
func answerable(e *event, bot string) bool {
	if e.BotID != "" || e.User == "" || e.Channel == "" || (bot != "" && e.User == bot) {
		return false
	}
	if e.Subtype != "" && e.Subtype != "file_share" {
		return false
	}
	return e.Type == "app_mention" || (e.Type == "message" && e.ChannelType == "im")
}

// botUser is the bot's user id, which Slack lists in authorizations.
func botUser(env envelope) string {
	if len(env.Authorizations) > 0 {
		return env.Authorizations[0].UserID
	}
	return ""
}

var leadingMention = regexp.MustCompile(`^\s*<@[A-Z0-9]+(\|[^>]*)?>`)

// stripMention removes the bot's mentions, or the leading mention when
// the bot's id is not known.
func stripMention(text, bot string) string {
	if bot == "" {
		return leadingMention.ReplaceAllString(text, "")
	}
	re := regexp.MustCompile(`<@` + regexp.QuoteMeta(bot) + `(\|[^>]*)?>`)
	return re.ReplaceAllString(text, "")
}

// plainText undoes Slack's escaping of &, < and >.
func plainText(s string) string {
	s = strings.NewReplacer("&lt;", "<", "&gt;", ">", "&amp;", "&").Replace(s)
	return strings.TrimSpace(strings.ReplaceAll(s, "  ", " "))
}
