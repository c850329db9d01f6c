package line

import (
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"regexp"

	appchannel "github.com/pergola-ai/pergola/application/channel"
	"github.com/pergola-ai/pergola/domain/errs"
)

// Kind posts scheduled messages with the push API.
var _ appchannel.Pusher = (*Kind)(nil)

// lineID is a LINE user (U…), group (C…) or room (R…) id: the letter and
// 32 hexadecimal digits.
var lineID = regexp.MustCompile(`^[UCR][0-9a-f]{32}$`)

// PushTo addresses a new message to the LINE user, group or room
// chatID: a reply without a reply token, which Deliver pushes (POST
// /v2/bot/message/push {to, messages}); the key is the one the chat's
// events have, the same id. The address carries an event id of its own,
// random, which keys the pushes' X-Line-Retry-Key: the retries of one
// scheduled message are sent once, and every scheduled message is sent.
func (k *Kind) PushTo(chatID string) (json.RawMessage, string, error) {
	if !lineID.MatchString(chatID) {
		return nil, "", errs.Invalid("chat_id", "must be a LINE user, group or room id: U, C or R followed by 32 hexadecimal digits (source.userId, groupId or roomId of the chat's events); got %q", chatID)
	}
	nonce := make([]byte, 16)
	if _, err := rand.Read(nonce); err != nil {
		return nil, "", err
	}
	reply, err := json.Marshal(replyTo{To: chatID, EventID: "push-" + hex.EncodeToString(nonce)})
	return reply, chatID, err
}
