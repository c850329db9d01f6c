package fakellm

import (
	"encoding/json"
	"math"
	"net/http"
	"strconv"
	"time"
)

// EmbedFault makes embedding and rerank requests fail, see
// Server.FailEmbeddings.
type EmbedFault struct {
	Status     int           // e.g. 429 or 503
	RetryAfter time.Duration // sent as Retry-After (whole seconds, rounded up) and retry-after-ms; 0: neither
}

// FailEmbeddings makes the next n requests to /v1/embeddings or /v1/rerank
// that pass validation answer f.Status with an OpenAI error body and, when
// f.RetryAfter is set, the Retry-After header (seconds) and, when it is not
// a whole number of seconds, retry-after-ms too (as OpenAI and Azure
// send). Refused requests do not consume a fault. Calls add up.
func (s *Server) FailEmbeddings(n int, f EmbedFault) {
	s.mu.Lock()
	defer s.mu.Unlock()
	for range n {
		s.embedFaults = append(s.embedFaults, f)
	}
}

func (s *Server) takeFault() (EmbedFault, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if len(s.embedFaults) == 0 {
		return EmbedFault{}, false
	}
	f := s.embedFaults[0]
	s.embedFaults = s.embedFaults[1:]
	return f, true
}

func writeFault(w http.ResponseWriter, f EmbedFault) {
	if f.RetryAfter > 0 {
		secs := int(math.Ceil(f.RetryAfter.Seconds()))
		w.Header().Set("Retry-After", strconv.Itoa(secs))
		if f.RetryAfter%time.Second != 0 {
			w.Header().Set("retry-after-ms", strconv.FormatInt(f.RetryAfter.Milliseconds(), 10))
		}
	}
	msg := "Rate limit reached for requests. Please try again later."
	if f.Status != http.StatusTooManyRequests {
		msg = http.StatusText(f.Status)
	}
	writeError(w, Fail(f.Status, msg), "")
}

// EmbedStats counts what reached the embedding and rerank endpoints,
// refused and failed requests included.
type EmbedStats struct {
	Requests       int64 `json:"requests"`        // POST /v1/embeddings
	Inputs         int64 `json:"inputs"`          // texts in those requests
	RerankRequests int64 `json:"rerank_requests"` // POST /v1/rerank
	Documents      int64 `json:"documents"`       // documents in those requests
}

// EmbedStats returns the counters since the server started or was Reset.
// They are also served as JSON by GET /v1/fake/stats.
func (s *Server) EmbedStats() EmbedStats {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.stats
}

func (s *Server) countEmbed(inputs int) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.stats.Requests++
	s.stats.Inputs += int64(inputs)
}

func (s *Server) countRerank(docs int) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.stats.RerankRequests++
	s.stats.Documents += int64(docs)
}

func (s *Server) serveStats(w http.ResponseWriter, _ *http.Request) {
	w.Header().Set("Content-Type", "application/json")
	_ = json.NewEncoder(w).Encode(s.EmbedStats())
}
