package feishu

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"

	"github.com/pergola-ai/pergola/domain/channel"
	"github.com/pergola-ai/pergola/domain/errs"
	"github.com/pergola-ai/pergola/infra/channels/delivery"
)

// Deliver answers the message reply names with the reply API, in plain
// text converted from Markdown, split into messages of at most 4,000
// characters. A refused tenant token is fetched again once, then
// errs.ErrUnauthenticated with the platform's words; 429, 5xx and the
// frequency-limit code are retried by the Kind's policy, honouring the
// wait asked for; a malformed reply is errs.ErrInvalid.
func (k *Kind) Deliver(ctx context.Context, c *channel.Channel, reply json.RawMessage, text string) error {
	var to replyTo
	if err := json.Unmarshal(reply, &to); err != nil || to.MessageID == "" {
		return errs.Invalid("reply", "must be a Feishu/Lark reply target {message_id, chat_id}")
	}
	pieces := delivery.Split(text, MaxMessage, Plain)
	for i, piece := range pieces {
		err := k.retry.Do(ctx, func(ctx context.Context) error { return k.reply(ctx, c, to.MessageID, Plain(piece)) })
		if err != nil {
			return fmt.Errorf("message %d of %d: %w", i+1, len(pieces), err)
		}
	}
	return nil
}

// reply sends one text message in reply to messageID.
func (k *Kind) reply(ctx context.Context, c *channel.Channel, messageID, text string) error {
	content, _ := json.Marshal(map[string]string{"text": text})
	body := map[string]string{"msg_type": "text", "content": string(content)}
	path := "/open-apis/im/v1/messages/" + url.PathEscape(messageID) + "/reply"
	return k.authed(ctx, c, func(token string) error {
		return k.call(ctx, http.MethodPost, base(c), path, token, body, nil)
	})
}
