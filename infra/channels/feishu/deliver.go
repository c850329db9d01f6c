package feishu

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"

	appchannel "github.com/pergola-ai/pergola/application/channel"
	"github.com/pergola-ai/pergola/domain/channel"
	"github.com/pergola-ai/pergola/domain/errs"
	"github.com/pergola-ai/pergola/infra/channels/delivery"
)

// MaxEdits is how many times the Open Platform lets a message be edited.
const MaxEdits = 20

// Kind streams answers by editing the reply it sent.
var _ appchannel.Streamer = (*Kind)(nil)

// sentMessage is the handle of a message the bot sent: what the edit API
// needs.
type sentMessage struct {
	MessageID string `json:"message_id"`
}

// Deliver answers the message reply names with the reply API (a PushTo
// address, {chat_id}: sends new messages to the chat), in plain
// text converted from Markdown, split into messages of at most 4,000
// characters. A refused tenant token is fetched again once, then
// errs.ErrUnauthenticated with the platform's words; 429, 5xx and the
// frequency-limit code are retried by the Kind's policy, honouring the
// wait asked for; a malformed reply is errs.ErrInvalid.
func (k *Kind) Deliver(ctx context.Context, c *channel.Channel, reply json.RawMessage, text string) error {
	pieces := k.Parts(text)
	for i, piece := range pieces {
		if _, err := k.SendPart(ctx, c, reply, i, piece); err != nil {
			return fmt.Errorf("message %d of %d: %w", i+1, len(pieces), err)
		}
	}
	return nil
}

// Parts cuts an answer into text messages of at most 4,000 characters.
func (k *Kind) Parts(text string) []string { return delivery.Split(text, MaxMessage, Plain) }

// MaxEdits is the platform's limit on the edits of one message.
func (k *Kind) MaxEdits() int { return MaxEdits }

// SendPart sends part i of an answer in reply to the user's message, or
// for a PushTo address {chat_id} as a new message of the chat (POST
// /open-apis/im/v1/messages?receive_id_type=chat_id), and returns the
// message's handle, {"message_id"}.
func (k *Kind) SendPart(ctx context.Context, c *channel.Channel, reply json.RawMessage, _ int, text string) (json.RawMessage, error) {
	var to replyTo
	err := json.Unmarshal(reply, &to)
	path, receiveID := "/open-apis/im/v1/messages/"+url.PathEscape(to.MessageID)+"/reply", ""
	switch {
	case err == nil && to.MessageID == "" && chatID.MatchString(to.ChatID):
		path, receiveID = "/open-apis/im/v1/messages?receive_id_type=chat_id", to.ChatID
	case err != nil || to.MessageID == "":
		return nil, errs.Invalid("reply", "must be a Feishu/Lark reply target {message_id, chat_id} or {chat_id}")
	}
	var out struct {
		Data sentMessage `json:"data"`
	}
	err = k.retry.Do(ctx, func(ctx context.Context) error {
		return k.sendText(ctx, c, http.MethodPost, path, receiveID, Plain(text), &out)
	})
	if err != nil {
		return nil, err
	}
	return json.Marshal(out.Data)
}

// Edit replaces the text of the message handle names (PUT
// /open-apis/im/v1/messages/{message_id}), once.
func (k *Kind) Edit(ctx context.Context, c *channel.Channel, _, handle json.RawMessage, text string) error {
	var h sentMessage
	if err := json.Unmarshal(handle, &h); err != nil || h.MessageID == "" {
		return errs.Invalid("handle", "must be a Feishu/Lark message {message_id}")
	}
	return k.sendText(ctx, c, http.MethodPut, "/open-apis/im/v1/messages/"+url.PathEscape(h.MessageID), "", Plain(text), nil)
}

// sendText sends a text message body to path with the tenant token,
// with receive_id when it is not empty (a new message).
func (k *Kind) sendText(ctx context.Context, c *channel.Channel, method, path, receiveID, text string, out any) error {
	content, _ := json.Marshal(map[string]string{"text": text})
	body := map[string]string{"msg_type": "text", "content": string(content)}
	if receiveID != "" {
		body["receive_id"] = receiveID
	}
	return k.authed(ctx, c, func(token string) error {
		return k.call(ctx, method, base(c), path, token, body, out)
	})
}
