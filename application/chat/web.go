package chat

// CheckUserID refuses an end-user id the chat runtime would refuse (see
// checkUserID), so a channel can check the ids it makes up before it
// stores anything. field names the request field in the message; the
// error matches errs.ErrInvalid.
func CheckUserID(field, id string) error { return checkUserID(field, id) }
