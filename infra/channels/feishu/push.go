package feishu

import (
	"encoding/json"
	"regexp"

	appchannel "github.com/pergola-ai/pergola/application/channel"
	"github.com/pergola-ai/pergola/domain/errs"
)

// Kind posts scheduled messages into the chats its bot is in.
var _ appchannel.Pusher = (*Kind)(nil)

// chatID is the shape of a Feishu/Lark chat id: oc_ and letters or digits.
var chatID = regexp.MustCompile(`^oc_[0-9A-Za-z]{1,64}$`)

// PushTo addresses a new message, not a reply, to the Feishu or Lark
// chat chatID (a group's or a direct chat's chat_id, oc_…); the key is
// the one the chat's messages have, its chat id. The bot must be in the
// chat.
func (k *Kind) PushTo(id string) (json.RawMessage, string, error) {
	if !chatID.MatchString(id) {
		return nil, "", errs.Invalid("chat_id", "must be a Feishu/Lark chat id: oc_ followed by letters and digits (the group's settings, or chat_id of its messages); got %q", id)
	}
	reply, err := json.Marshal(replyTo{ChatID: id})
	return reply, id, err
}
