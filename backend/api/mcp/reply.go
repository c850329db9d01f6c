package mcp

import (
	"bytes"
	"context"
	"encoding/json"
	"net/http"

	"github.com/modelcontextprotocol/go-sdk/auth"
)

// versionHeader is the protocol version a client sends with each request.
const versionHeader = "Mcp-Protocol-Version"

// repliesOnly reports whether a POST's body holds only responses: the
// client's answers to the server's requests (elicitation).
func repliesOnly(body []byte) bool {
	type msg struct {
		Method string          `json:"method"`
		ID     json.RawMessage `json:"id"`
	}
	var all []msg
	trimmed := bytes.TrimSpace(body)
	if len(trimmed) > 0 && trimmed[0] == '[' {
		if json.Unmarshal(trimmed, &all) != nil {
			return false
		}
	} else {
		var m msg
		if json.Unmarshal(trimmed, &m) != nil {
			return false
		}
		all = []msg{m}
	}
	for _, m := range all {
		if m.Method != "" || len(m.ID) == 0 {
			return false
		}
	}
	return len(all) > 0
}

// deliver hands the replies another process received for session e.Reply
// to the SDK's session here, when this process holds it: as the POST the
// client sent, with the token of the request that opened the session (the
// other process checked that the same token sent them).
func (s *sessions) deliver(e event) {
	s.mu.Lock()
	h, ok := s.local[e.Reply]
	s.mu.Unlock()
	if !ok || h.info == nil {
		return
	}
	ctx, cancel := context.WithTimeout(context.Background(), storeTimeout)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, Path, bytes.NewReader(e.Body))
	if err != nil {
		return
	}
	req.Header.Set("Authorization", "Bearer relayed")
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	req.Header.Set(sessionHeader, e.Reply)
	if e.Version != "" {
		req.Header.Set(versionHeader, e.Version)
	}
	as := func(context.Context, string, *http.Request) (*auth.TokenInfo, error) { return h.info, nil }
	auth.RequireBearerToken(as, &auth.RequireBearerTokenOptions{AllowMissingExpiration: true})(s.stateful).ServeHTTP(discard{}, req)
}

// discard is a response nobody reads: the client had its answer from the
// process it sent the replies to.
type discard struct{}

func (discard) Header() http.Header         { return http.Header{} }
func (discard) Write(b []byte) (int, error) { return len(b), nil }
func (discard) WriteHeader(int)             {}
