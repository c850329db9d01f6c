package discord

import (
	"context"
	"crypto/ed25519"
	"encoding/hex"
	"encoding/json"
	"strconv"
	"strings"
	"time"

	appchannel "github.com/pergola-ai/pergola/application/channel"
	"github.com/pergola-ai/pergola/domain/channel"
	"github.com/pergola-ai/pergola/domain/errs"
)

// The headers Discord signs its interactions with.
const (
	SignatureHeader = "X-Signature-Ed25519"
	TimestampHeader = "X-Signature-Timestamp"
)

// Tolerance is how far X-Signature-Timestamp may be from the time the
// request arrived.
const Tolerance = 5 * time.Minute

// The interaction types the channel reads, and its answers.
const (
	typePing    = 1
	typeCommand = 2

	responsePong     = 1
	responseDeferred = 5
)

// interaction is the part of an interaction the channel reads.
type interaction struct {
	Type          int    `json:"type"`
	ID            string `json:"id"`
	ApplicationID string `json:"application_id"`
	Token         string `json:"token"`
	ChannelID     string `json:"channel_id"`
	Channel       *struct {
		ID string `json:"id"`
	} `json:"channel"`
	Member *struct {
		User *user `json:"user"`
	} `json:"member"`
	User *user `json:"user"`
	Data *struct {
		Name    string   `json:"name"`
		Options []option `json:"options"`
	} `json:"data"`
}

type user struct {
	ID string `json:"id"`
}

// option is a slash command's option; subcommands nest theirs.
type option struct {
	Name    string          `json:"name"`
	Type    int             `json:"type"`
	Value   json.RawMessage `json:"value"`
	Options []option        `json:"options"`
}

// optionString is the type of a string option.
const optionString = 3

// replyTo is where an answer goes: the interaction's webhook, or for a
// scheduled message (PushTo) a channel.
type replyTo struct {
	ApplicationID string `json:"application_id,omitempty"`
	Token         string `json:"token,omitempty"`
	ChannelID     string `json:"channel_id,omitempty"`
}

// Receive verifies X-Signature-Ed25519 (the Ed25519 signature of
// X-Signature-Timestamp followed by the raw body, under the channel's
// public_key, the timestamp within 5 minutes of arrival;
// errs.ErrUnauthenticated otherwise), answers PING with PONG, and
// defers a slash command ({"type":5}) with one event: its question
// option, or its first string option. Other interactions are answered
// 200 with no event. A body that is not an interaction is
// errs.ErrInvalid.
func (k *Kind) Receive(_ context.Context, c *channel.Channel, in appchannel.Inbound) (appchannel.Reaction, error) {
	if err := verify(setting(c, "public_key"), in); err != nil {
		return appchannel.Reaction{}, err
	}
	var it interaction
	if err := json.Unmarshal(in.Body, &it); err != nil || it.Type == 0 {
		return appchannel.Reaction{}, errs.Invalid("body", "must be a Discord interaction with a type")
	}
	switch it.Type {
	case typePing:
		return respond(responsePong), nil
	case typeCommand:
		return command(it, setting(c, "application_id"))
	}
	return appchannel.Reaction{}, nil
}

// verify checks the request's signature and freshness.
func verify(publicKey string, in appchannel.Inbound) error {
	key, err := hex.DecodeString(publicKey)
	if err != nil || len(key) != ed25519.PublicKeySize {
		return errs.Unauthenticated("the channel's public_key is not an Ed25519 key; nothing can be verified")
	}
	sig, err := hex.DecodeString(in.Header(SignatureHeader))
	ts := in.Header(TimestampHeader)
	if err != nil || len(sig) != ed25519.SignatureSize || ts == "" {
		return errs.Unauthenticated("missing or malformed %s or %s header", SignatureHeader, TimestampHeader)
	}
	if !ed25519.Verify(ed25519.PublicKey(key), append([]byte(ts), in.Body...), sig) {
		return errs.Unauthenticated("%s does not match the request signed with the application's key (public_key)", SignatureHeader)
	}
	if !fresh(ts, in.Received) {
		return errs.Unauthenticated("%s is more than 5 minutes from now; the request is stale or replayed", TimestampHeader)
	}
	return nil
}

func fresh(ts string, now time.Time) bool {
	secs, err := strconv.ParseInt(ts, 10, 64)
	if err != nil {
		return false
	}
	if now.IsZero() {
		now = time.Now()
	}
	d := now.Sub(time.Unix(secs, 0))
	return d <= Tolerance && d >= -Tolerance
}

// command defers a slash command and turns it into an event.
func command(it interaction, appID string) (appchannel.Reaction, error) {
	who, where := userOf(it), channelOf(it)
	if it.ID == "" || it.Token == "" || who == "" || where == "" {
		return appchannel.Reaction{}, errs.Invalid("body", "a slash command must carry id, token, channel_id and member.user or user")
	}
	if it.ApplicationID != "" {
		appID = it.ApplicationID
	}
	reply, _ := json.Marshal(replyTo{ApplicationID: appID, Token: it.Token})
	text := strings.TrimSpace(question(it))
	r := respond(responseDeferred)
	r.Events = []appchannel.Event{{ID: it.ID, UserID: who, ConversationKey: where, Text: text, NotText: text == "", Reply: reply}}
	return r, nil
}

func respond(typ int) appchannel.Reaction {
	body, _ := json.Marshal(map[string]any{"type": typ})
	return appchannel.Reaction{ContentType: "application/json", Body: body}
}

func userOf(it interaction) string {
	if it.Member != nil && it.Member.User != nil {
		return it.Member.User.ID
	}
	if it.User != nil {
		return it.User.ID
	}
	return ""
}

func channelOf(it interaction) string {
	if it.ChannelID == "" && it.Channel != nil {
		return it.Channel.ID
	}
	return it.ChannelID
}

// question is the option named question, or else the first string
// option, subcommands' options included.
func question(it interaction) string {
	if it.Data == nil {
		return ""
	}
	if v, ok := findString(it.Data.Options, "question"); ok {
		return v
	}
	v, _ := findString(it.Data.Options, "")
	return v
}

// findString finds the first string option named name ("": any name).
func findString(opts []option, name string) (string, bool) {
	for _, o := range opts {
		var v string
		if o.Type == optionString && (name == "" || o.Name == name) && json.Unmarshal(o.Value, &v) == nil {
			return v, true
		}
		if v, ok := findString(o.Options, name); ok {
			return v, true
		}
	}
	return "", false
}
