package slackfake

import "net/http"

// Update is one chat.update the fake accepted.
type Update struct {
	Channel string
	TS      string
	Text    string
}

// Updates lists the updates accepted, in order.
func (s *Server) Updates() []Update {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]Update(nil), s.updates...)
}

// Message returns a message the bot posted as it reads now, after its
// updates.
func (s *Server) Message(channel, ts string) (Posted, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	m, ok := s.current[channel+"/"+ts]
	return m, ok
}

// update edits a message the bot posted, as chat.update does: channel
// and ts must name one (message_not_found otherwise), and the text
// must be one Slack takes. Slack accepts an update that changes nothing.
func (s *Server) update(w http.ResponseWriter, p map[string]string) {
	u := Update{Channel: p["channel"], TS: p["ts"], Text: p["text"]}
	if u.Channel == "" {
		writeError(w, "channel_not_found")
		return
	}
	if why := textError(u.Text); why != "" {
		writeError(w, why)
		return
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	m, ok := s.current[u.Channel+"/"+u.TS]
	if !ok {
		writeError(w, "message_not_found")
		return
	}
	m.Text = u.Text
	s.current[u.Channel+"/"+u.TS] = m
	s.updates = append(s.updates, u)
	writeJSON(w, http.StatusOK, map[string]any{"ok": true, "channel": u.Channel, "ts": u.TS, "text": u.Text,
		"message": map[string]any{"text": u.Text, "user": s.bot.UserID, "bot_id": s.bot.BotID}})
}
