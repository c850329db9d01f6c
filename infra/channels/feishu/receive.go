package feishu

import (
	"context"
	"encoding/json"

	appchannel "github.com/pergola-ai/pergola/application/channel"
	"github.com/pergola-ai/pergola/domain/channel"
	"github.com/pergola-ai/pergola/domain/errs"
)

// envelope is the part of an event request the channel reads: v1
// challenges carry type, token and challenge at the top, v2 events a
// header and an event.
type envelope struct {
	Encrypt   string       `json:"encrypt"`
	Type      string       `json:"type"`
	Token     string       `json:"token"`
	Challenge string       `json:"challenge"`
	Schema    string       `json:"schema"`
	Header    *eventHeader `json:"header"`
	Event     *msgEvent    `json:"event"`
}

type eventHeader struct {
	EventID   string `json:"event_id"`
	EventType string `json:"event_type"`
	Token     string `json:"token"`
}

// replyTo is where an answer goes: the message replied to, and its chat;
// for a scheduled message (PushTo) only the chat.
type replyTo struct {
	MessageID string `json:"message_id,omitempty"`
	ChatID    string `json:"chat_id"`
}

// Receive verifies the request (with an encrypt_key: X-Lark-Signature,
// its timestamp within 5 minutes, and the body decrypted; always: the
// token against verification_token — errs.ErrUnauthenticated
// otherwise), answers url_verification with its challenge and parses
// im.message.receive_v1: messages of people in direct chats, and in
// groups those that mention the bot. Other events give no event; a
// body that is not an event request is errs.ErrInvalid.
func (k *Kind) Receive(ctx context.Context, c *channel.Channel, in appchannel.Inbound) (appchannel.Reaction, error) {
	env, signed, err := k.open(c, in)
	if err != nil {
		return appchannel.Reaction{}, err
	}
	if env.Type == "url_verification" {
		body, _ := json.Marshal(map[string]string{"challenge": env.Challenge})
		return appchannel.Reaction{ContentType: "application/json", Body: body}, nil
	}
	if setting(c, "encrypt_key") != "" && !signed {
		return appchannel.Reaction{}, errs.Unauthenticated("missing the %s and %s headers", SignatureHeader, TimestampHeader)
	}
	if env.Header == nil || env.Header.EventType != "im.message.receive_v1" {
		return appchannel.Reaction{}, nil
	}
	return k.parseMessage(ctx, c, env)
}

// open verifies, decrypts and parses the request, and checks its token.
func (k *Kind) open(c *channel.Channel, in appchannel.Inbound) (envelope, bool, error) {
	key := setting(c, "encrypt_key")
	signed := false
	if key != "" {
		var err error
		if signed, err = checkSignature(key, in, k.now()); err != nil {
			return envelope{}, false, err
		}
	}
	env, err := parseEnvelope(in.Body, key)
	if err != nil {
		return envelope{}, false, err
	}
	token := env.Token
	if env.Header != nil {
		token = env.Header.Token
	}
	if !sameToken(token, setting(c, "verification_token")) {
		return envelope{}, false, errs.Unauthenticated("the request's token is not the channel's verification_token")
	}
	return env, signed, nil
}

func parseEnvelope(body []byte, key string) (envelope, error) {
	var env envelope
	if err := json.Unmarshal(body, &env); err != nil {
		return env, errs.Invalid("body", "must be a Feishu/Lark event request (JSON)")
	}
	if env.Encrypt != "" {
		if key == "" {
			return env, errs.Unauthenticated("the body is encrypted but the channel has no encrypt_key; set the app's Encrypt Key in its settings")
		}
		plain, err := decrypt(key, env.Encrypt)
		if err != nil {
			return env, err
		}
		env = envelope{}
		if err := json.Unmarshal(plain, &env); err != nil {
			return env, errs.Invalid("body", "the decrypted body is not an event request")
		}
	}
	if env.Type == "" && env.Header == nil {
		return env, errs.Invalid("body", "must be a url_verification challenge or a schema 2.0 event with a header")
	}
	return env, nil
}

// mentionsBot says whether a message is addressed to the bot, and
// returns the bot's open_id when it had to be known: direct messages
// always are; group messages when they mention the bot, whose open_id
// is asked of the platform (cached). When it cannot be known the error
// is returned, so the platform delivers the event again.
func (k *Kind) mentionsBot(ctx context.Context, c *channel.Channel, m *message) (string, bool, error) {
	if m.ChatType == "p2p" {
		return "", true, nil
	}
	if len(m.Mentions) == 0 {
		return "", false, nil
	}
	bot, err := k.botOpenID(ctx, c)
	if err != nil {
		return "", false, errs.New(errs.ErrUnavailable, "cannot tell whether the group message mentions the bot: %v", err)
	}
	for _, mention := range m.Mentions {
		if bot != "" && mention.ID.OpenID == bot {
			return bot, true, nil
		}
	}
	return bot, false, nil
}
