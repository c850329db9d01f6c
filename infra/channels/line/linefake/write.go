package linefake

import (
	"encoding/json"
	"fmt"
	"net/http"
)

func (s *Server) accept(via, to string, b sendBody) {
	texts := make([]string, len(b.Messages))
	for i, m := range b.Messages {
		texts[i] = m.Text
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	s.sent = append(s.sent, Sent{Via: via, To: to, Texts: texts})
}

func (s *Server) record(call string) {
	s.journal.Record(call)
}

func writeFailure(w http.ResponseWriter, f failure) {
	if f.status == http.StatusTooManyRequests {
		if f.retryAfter > 0 {
			w.Header().Set("Retry-After", fmt.Sprint(f.retryAfter))
		}
		writeError(w, f.status, "The API rate limit has been exceeded. Try again later.")
		return
	}
	writeError(w, f.status, "An error occurred in the API server")
}

func writeError(w http.ResponseWriter, status int, msg string) {
	writeJSON(w, status, map[string]any{"message": msg})
}

// writeDetails answers 400 as LINE does for a body failing validation.
func writeDetails(w http.ResponseWriter, property, msg string) {
	writeJSON(w, http.StatusBadRequest, map[string]any{"message": "The request body has 1 error(s)",
		"details": []map[string]any{{"message": msg, "property": property}}})
}

func writeJSON(w http.ResponseWriter, status int, body any) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	_ = json.NewEncoder(w).Encode(body)
}
