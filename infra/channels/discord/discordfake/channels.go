package discordfake

import (
	"net/http"
	"regexp"
	"slices"
)

// snowflake is the shape of a Discord id.
var snowflake = regexp.MustCompile(`^[0-9]{17,20}$`)

// channelCall answers the bot's calls on a channel's messages: parts is
// [channel_id, "messages"] (POST: a new message) or [channel_id,
// "messages", message_id] (PATCH: an edit of a message the bot posted
// there). They need "Authorization: Bot {token}", a channel id Discord
// knows (App.ChannelIDs) and content as the webhook calls do.
func (s *Server) channelCall(w http.ResponseWriter, r *http.Request, parts []string) {
	post := len(parts) == 2 && parts[1] == "messages" && r.Method == http.MethodPost
	edit := len(parts) == 3 && parts[1] == "messages" && r.Method == http.MethodPatch
	switch {
	case len(parts) < 2 || parts[1] != "messages":
		writeError(w, http.StatusNotFound, "404: Not Found", 0)
	case !post && !edit:
		writeError(w, http.StatusMethodNotAllowed, "405: Method Not Allowed", 0)
	case r.Header.Get("Authorization") != "Bot "+s.app.BotToken:
		writeError(w, http.StatusUnauthorized, "401: Unauthorized", 0)
	case !snowflake.MatchString(parts[0]):
		writeJSON(w, http.StatusBadRequest, map[string]any{"message": "Invalid Form Body", "code": 50035, "errors": map[string]any{
			"channel_id": map[string]any{"_errors": []map[string]any{{"code": "NUMBER_TYPE_COERCE",
				"message": "Value \"" + parts[0] + "\" is not snowflake."}}}}})
	case !slices.Contains(s.app.ChannelIDs, parts[0]):
		writeError(w, http.StatusNotFound, "Unknown Channel", 10003)
	case edit && !s.posted(parts[0], parts[2]):
		writeError(w, http.StatusNotFound, "Unknown Message", 10008)
	case edit:
		s.message(w, r, Message{ChannelID: parts[0], Edit: true, Target: parts[2]})
	default:
		s.message(w, r, Message{ChannelID: parts[0]})
	}
}

// posted reports whether id is a message the bot posted in channelID.
func (s *Server) posted(channelID, id string) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, m := range s.messages {
		if m.ChannelID == channelID && !m.Edit && m.ID == id {
			return true
		}
	}
	return false
}

// MessagesIn lists the messages the bot posted or edited in a channel.
func (s *Server) MessagesIn(channelID string) []Message {
	var out []Message
	for _, m := range s.Messages() {
		if m.ChannelID == channelID {
			out = append(out, m)
		}
	}
	return out
}
