package chat

import "github.com/pergola-ai/pergola/domain/conversation"

// checkUserID refuses an end-user id as conversation.CheckUserID does, at
// its full length. field names the request field in the message.
func checkUserID(field, id string) error {
	return conversation.CheckUserID(field, id, conversation.MaxUserIDLen)
}
