package channel

import (
	"context"
	"encoding/json"
	"net/http"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	convapp "github.com/pergola-ai/pergola/application/conversation"
	"github.com/pergola-ai/pergola/domain/channel"
	"github.com/pergola-ai/pergola/domain/conversation"
	"github.com/pergola-ai/pergola/domain/errs"
)

// maxIDLen bounds event, user and conversation ids of our webhook.
const maxIDLen = 200

// Webhook is the Adapter of our own signed webhook: events are signed
// with the channel's secret; answers are the response, or POSTed signed
// to callback_url.
type Webhook struct {
	HTTP *http.Client // the guarded egress client
	Now  func() time.Time
	// Limits bound an event's text as every surface bounds a message;
	// zero: the defaults.
	Limits convapp.TextLimits
}

// webhookEvent is what a system posts to a webhook channel.
type webhookEvent struct {
	EventID        string `json:"event_id"`
	UserID         string `json:"user_id"`
	ConversationID string `json:"conversation_id"`
	Text           string `json:"text"`
}

// webhookReply is where a webhook answer goes: the event it answers.
type webhookReply struct {
	EventID string `json:"event_id"`
}

// WebhookAnswer is the answer of our webhook, in the response or posted
// to callback_url; ids are decimal strings. When the bot could not
// answer, Text is the apology to show the person and Error says why.
type WebhookAnswer struct {
	EventID        string `json:"event_id"`
	ChatID         string `json:"chat_id"`
	ConversationID string `json:"conversation_id"`
	Text           string `json:"text"`
	Error          string `json:"error,omitempty"`
}

func (w *Webhook) now() time.Time {
	if w.Now == nil {
		return time.Now()
	}
	return w.Now()
}

func settingOf(c *channel.Channel, name string) string {
	s, _ := c.Settings[name].(string)
	return s
}

// Receive verifies X-Pergola-Signature and parses the event.
func (w *Webhook) Receive(_ context.Context, c *channel.Channel, in Inbound) (Reaction, error) {
	if err := Verify(settingOf(c, "secret"), in.Header(SignatureHeader), in.Body, w.now()); err != nil {
		return Reaction{}, err
	}
	ev, err := parseWebhookEvent(in.Body)
	if err != nil {
		return Reaction{}, err
	}
	if err := w.Limits.CheckText("text", ev.Text); err != nil {
		return Reaction{}, err
	}
	key := ev.ConversationID
	if key == "" {
		key = "user:" + ev.UserID
	}
	reply, _ := json.Marshal(webhookReply{EventID: ev.EventID})
	re := Reaction{Events: []Event{{ID: ev.EventID, UserID: ev.UserID, ConversationKey: key, Text: ev.Text, Reply: reply}}}
	if settingOf(c, "callback_url") != "" {
		re.Status = http.StatusAccepted
		re.Body, _ = json.Marshal(map[string]string{"event_id": ev.EventID, "status": "accepted"})
	}
	return re, nil
}

func parseWebhookEvent(body []byte) (webhookEvent, error) {
	var ev webhookEvent
	dec := json.NewDecoder(strings.NewReader(string(body)))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&ev); err != nil {
		return ev, errs.Invalid("body", "must be a JSON object {\"event_id\",\"user_id\",\"conversation_id\"?,\"text\"}: %v", err)
	}
	for _, f := range []struct{ name, v string }{{"event_id", ev.EventID}, {"user_id", ev.UserID}, {"conversation_id", ev.ConversationID}} {
		if utf8.RuneCountInString(f.v) > maxIDLen {
			return ev, errs.Invalid(f.name, "must be at most %d characters", maxIDLen)
		}
	}
	switch {
	case strings.TrimSpace(ev.EventID) == "":
		return ev, errs.Invalid("event_id", "is required: a unique id per event, so a retried event is answered once")
	case strings.TrimSpace(ev.UserID) == "":
		return ev, errs.Invalid("user_id", "is required: the id of the person in your system")
	case strings.TrimSpace(ev.Text) == "":
		return ev, errs.Invalid("text", "is required: the person's message")
	}
	return ev, checkWebhookUser(ev.UserID)
}

// checkWebhookUser refuses a user_id the chat runtime would refuse as the
// end user "webhook:<user_id>", before the event is stored: the sender
// learns what to fix (400) instead of getting a failed answer.
func checkWebhookUser(id string) error {
	return conversation.CheckUserID("user_id", id, conversation.MaxUserIDLen-len(channel.KindWebhook)-1)
}

// AnswersInline reports whether answers go in the response: no
// callback_url.
func (w *Webhook) AnswersInline(c *channel.Channel) bool { return settingOf(c, "callback_url") == "" }

// InlineReaction is 200 with the answer, or 502 saying why there is none
// (with the apology to show the person as text, when the bot failed).
func (w *Webhook) InlineReaction(_ *channel.Channel, d *channel.Delivery) (Reaction, error) {
	if d.Status == channel.DeliveryFailed || d.Apology {
		body, _ := json.Marshal(map[string]string{"event_id": d.EventID, "error": d.Error, "text": d.Answer})
		return Reaction{Status: http.StatusBadGateway, Body: body}, nil
	}
	body, _ := json.Marshal(answerOf(d))
	return Reaction{Body: body}, nil
}

func answerOf(d *channel.Delivery) WebhookAnswer {
	a := WebhookAnswer{EventID: d.EventID, ChatID: strconv.FormatInt(d.ChatID, 10),
		ConversationID: strconv.FormatInt(d.ConversationID, 10), Text: d.Answer}
	if d.Apology {
		a.Error = turnWhy(d)
	}
	return a
}
