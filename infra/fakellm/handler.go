package fakellm

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"slices"
	"time"
)

// Handler returns the server's HTTP handler, for mounting on a server of
// your own (httptest.NewServer, for one).
func (s *Server) Handler() http.Handler {
	mux := http.NewServeMux()
	mux.HandleFunc("POST /v1/chat/completions", s.completions)
	mux.HandleFunc("POST /chat/completions", s.completions)
	mux.HandleFunc("GET /v1/models", s.models)
	mux.HandleFunc("GET /models", s.models)
	mux.HandleFunc("POST /v1/embeddings", s.embeddings)
	mux.HandleFunc("POST /embeddings", s.embeddings)
	mux.HandleFunc("POST /v1/rerank", s.rerank)
	mux.HandleFunc("POST /rerank", s.rerank)
	mux.HandleFunc("GET /v1/fake/stats", s.serveStats)
	return mux
}

func (s *Server) completions(w http.ResponseWriter, r *http.Request) {
	if !s.authorised(w, r) {
		return
	}
	auth := r.Header.Get("Authorization")
	var wr wireRequest
	if err := json.NewDecoder(r.Body).Decode(&wr); err != nil {
		writeError(w, Fail(http.StatusBadRequest, "invalid JSON body: "+err.Error()), "")
		return
	}
	req := decodeRequest(wr, auth)
	why := checkMessages(wr.Messages)
	for i := 0; why == "" && i < len(wr.Messages); i++ {
		why = checkParts(i, wr.Messages[i], slices.Contains(s.cfg.textOnly, wr.Model))
	}
	if why != "" {
		s.keep(req)
		writeError(w, Fail(http.StatusBadRequest, why), "messages")
		return
	}
	if why := checkFormat(wr.Format, wr.Messages); why != "" {
		s.keep(req)
		writeError(w, Fail(http.StatusBadRequest, why), "response_format")
		return
	}
	reply := s.record(req)
	if reply.Status != 0 {
		writeError(w, reply, "")
		return
	}
	reply.ToolCalls = s.withIDs(reply.ToolCalls)
	c := completion{
		id:    fmt.Sprintf("chatcmpl-fake-%d", s.seq.Add(1)),
		model: req.Model,
		reply: reply,
		usage: usageFor(req, reply),
	}
	if req.Stream {
		s.stream(r.Context(), w, c, req.IncludeUsage)
		return
	}
	s.respond(r.Context(), w, c)
}

// completion is one answer being written.
type completion struct {
	id    string
	model string
	reply Reply
	usage Usage
}

// withIDs returns a copy of calls with IDs and types filled in.
func (s *Server) withIDs(calls []ToolCall) []ToolCall {
	if len(calls) == 0 {
		return nil
	}
	out := make([]ToolCall, len(calls))
	n := s.seq.Add(1)
	for i, c := range calls {
		if c.ID == "" {
			c.ID = fmt.Sprintf("call_%d_%d", n, i)
		}
		if c.Type == "" {
			c.Type = "function"
		}
		out[i] = c
	}
	return out
}

func (s *Server) respond(ctx context.Context, w http.ResponseWriter, c completion) {
	wait := s.cfg.firstTokenLatency
	if s.cfg.tokenLatency > 0 {
		wait += time.Duration(len(s.deltas(c.reply))) * s.cfg.tokenLatency
	}
	if !sleep(ctx, wait) {
		return
	}
	msg := &wireOutput{Role: "assistant", Reasoning: c.reply.Reasoning, ToolCalls: wireCalls(c.reply.ToolCalls)}
	if c.reply.Text != "" || len(c.reply.ToolCalls) == 0 {
		msg.Content = &c.reply.Text
	}
	body := wireCompletion{
		ID: c.id, Object: "chat.completion", Created: time.Now().Unix(), Model: c.model,
		Choices: []wireChoice{{Message: msg, FinishReason: finishReason(c.reply)}},
		Usage:   c.usage.wire(),
	}
	w.Header().Set("Content-Type", "application/json")
	_ = json.NewEncoder(w).Encode(body)
}

func wireCalls(calls []ToolCall) []wireToolCall {
	out := make([]wireToolCall, len(calls))
	for i, c := range calls {
		out[i] = wireToolCall{ID: c.ID, Type: c.Type, Function: wireFunction(c.Function)}
	}
	return out
}

func finishReason(r Reply) *string {
	reason := "stop"
	if len(r.ToolCalls) > 0 {
		reason = "tool_calls"
	}
	return &reason
}

// writeError answers with an OpenAI error body; param names the request
// field at fault, or is "" (null).
func writeError(w http.ResponseWriter, r Reply, param string) {
	var body wireError
	body.Error.Message = r.Error
	body.Error.Type = errorType(r.Status)
	if param != "" {
		body.Error.Param = &param
	}
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(r.Status)
	_ = json.NewEncoder(w).Encode(body)
}

func (s *Server) models(w http.ResponseWriter, _ *http.Request) {
	type model struct {
		ID      string `json:"id"`
		Object  string `json:"object"`
		Created int64  `json:"created"`
		OwnedBy string `json:"owned_by"`
	}
	list := struct {
		Object string  `json:"object"`
		Data   []model `json:"data"`
	}{Object: "list", Data: make([]model, 0, len(s.cfg.models))}
	for _, id := range s.cfg.models {
		list.Data = append(list.Data, model{ID: id, Object: "model", OwnedBy: "fakellm"})
	}
	w.Header().Set("Content-Type", "application/json")
	_ = json.NewEncoder(w).Encode(list)
}

// sleep waits d, or less when ctx ends first; it reports whether ctx is
// still alive.
func sleep(ctx context.Context, d time.Duration) bool {
	if d <= 0 {
		return ctx.Err() == nil
	}
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return true
	case <-ctx.Done():
		return false
	}
}
