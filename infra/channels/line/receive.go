package line

import (
	"context"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"

	appchannel "github.com/pergola-ai/pergola/application/channel"
	"github.com/pergola-ai/pergola/domain/channel"
	"github.com/pergola-ai/pergola/domain/errs"
)

// SignatureHeader is the header LINE signs its webhook requests with.
const SignatureHeader = "X-Line-Signature"

// callback is a webhook request of the Messaging API.
type callback struct {
	Destination string   `json:"destination"`
	Events      *[]event `json:"events"`
}

type event struct {
	Type           string   `json:"type"`
	Mode           string   `json:"mode"`
	WebhookEventID string   `json:"webhookEventId"`
	ReplyToken     string   `json:"replyToken"`
	Source         source   `json:"source"`
	Message        *message `json:"message"`
}

type source struct {
	Type    string `json:"type"`
	UserID  string `json:"userId"`
	GroupID string `json:"groupId"`
	RoomID  string `json:"roomId"`
}

type message struct {
	Type    string   `json:"type"`
	ID      string   `json:"id"`
	Text    string   `json:"text"`
	Mention *mention `json:"mention"`
}

type mention struct {
	Mentionees []mentionee `json:"mentionees"`
}

type mentionee struct {
	Index  int  `json:"index"`
	Length int  `json:"length"`
	IsSelf bool `json:"isSelf"`
}

// replyTo is how an answer goes back: the event's reply token, and the
// user, group or room to push to once the token has expired. EventID
// keys the pushes' X-Line-Retry-Key, so a push retried is sent once. A
// scheduled message (PushTo) has no reply token: it is pushed.
type replyTo struct {
	ReplyToken string `json:"reply_token,omitempty"`
	To         string `json:"to"`
	EventID    string `json:"event_id"`
}

// Receive verifies X-Line-Signature (base64 of HMAC-SHA256 of the raw
// body under the channel's channel_secret; errs.ErrUnauthenticated
// otherwise) and parses the message events: in 1:1 chats every message,
// in groups and rooms only those mentioning the bot (the mention
// removed). A message that is not text gives a NotText event; other
// event types and events of a channel in standby give none. An empty
// events list (the console's "Verify") is answered 200. A body that is
// not a webhook request is errs.ErrInvalid.
func (k *Kind) Receive(_ context.Context, c *channel.Channel, in appchannel.Inbound) (appchannel.Reaction, error) {
	if err := verify(setting(c, "channel_secret"), in); err != nil {
		return appchannel.Reaction{}, err
	}
	var cb callback
	if err := json.Unmarshal(in.Body, &cb); err != nil || cb.Events == nil {
		return appchannel.Reaction{}, errs.Invalid("body", "must be a LINE webhook request with an events list")
	}
	var out appchannel.Reaction
	for _, e := range *cb.Events {
		ev, ok, err := parseEvent(e)
		if err != nil {
			return appchannel.Reaction{}, err
		}
		if ok {
			out.Events = append(out.Events, ev)
		}
	}
	return out, nil
}

// verify checks the request's signature in constant time.
func verify(secret string, in appchannel.Inbound) error {
	got, err := base64.StdEncoding.DecodeString(in.Header(SignatureHeader))
	if err != nil || len(got) == 0 {
		return errs.Unauthenticated("missing or malformed %s header (base64 of an HMAC-SHA256)", SignatureHeader)
	}
	if !hmac.Equal(got, Sign(secret, in.Body)) {
		return errs.Unauthenticated("%s does not match the request signed with the channel's channel_secret", SignatureHeader)
	}
	return nil
}

// Sign is the HMAC-SHA256 of body under secret, as LINE signs requests.
func Sign(secret string, body []byte) []byte {
	m := hmac.New(sha256.New, []byte(secret))
	_, _ = m.Write(body)
	return m.Sum(nil)
}

// parseEvent turns a message event for the bot into an Event; false for
// events the bot does not answer.
func parseEvent(e event) (appchannel.Event, bool, error) {
	if e.Type != "message" || e.Mode == "standby" || e.Message == nil {
		return appchannel.Event{}, false, nil
	}
	if e.WebhookEventID == "" || e.Source.UserID == "" || e.ReplyToken == "" {
		return appchannel.Event{}, false, errs.Invalid("body", "a message event must carry webhookEventId, replyToken and source.userId")
	}
	to := conversation(e.Source)
	group := to != e.Source.UserID
	text, mentioned := stripSelfMentions(e.Message)
	if group && !mentioned {
		return appchannel.Event{}, false, nil
	}
	reply, _ := json.Marshal(replyTo{ReplyToken: e.ReplyToken, To: to, EventID: e.WebhookEventID})
	isText := e.Message.Type == "text"
	if !isText {
		text = ""
	}
	return appchannel.Event{ID: e.WebhookEventID, UserID: e.Source.UserID, ConversationKey: to,
		Text: text, NotText: !isText || text == "", Reply: reply}, true, nil
}

// conversation is the id of the chat: the group, the room or the user.
func conversation(s source) string {
	switch {
	case s.GroupID != "":
		return s.GroupID
	case s.RoomID != "":
		return s.RoomID
	}
	return s.UserID
}
