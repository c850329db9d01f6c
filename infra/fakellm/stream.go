package fakellm

import (
	"context"
	"encoding/json"
	"net/http"
	"time"
)

// deltas splits a reply into the deltas of its stream: an opening role
// delta, the text in pieces, then each tool call as a head (index, id, type,
// name) followed by argument fragments that carry only the index, as OpenAI
// streams them.
func (s *Server) deltas(r Reply) []wireOutput {
	empty := ""
	out := []wireOutput{{Role: "assistant", Content: &empty}}
	for _, piece := range split(r.Reasoning, s.cfg.chunkChars) {
		out = append(out, wireOutput{Reasoning: piece})
	}
	for _, piece := range split(r.Text, s.cfg.chunkChars) {
		out = append(out, wireOutput{Content: &piece})
	}
	for i, c := range r.ToolCalls {
		head := wireToolCall{Index: &i, ID: c.ID, Type: c.Type, Function: wireFunction{Name: c.Function.Name}}
		out = append(out, wireOutput{ToolCalls: []wireToolCall{head}})
		for _, piece := range split(c.Function.Arguments, s.cfg.chunkChars) {
			frag := wireToolCall{Index: &i, Function: wireFunction{Arguments: piece}}
			out = append(out, wireOutput{ToolCalls: []wireToolCall{frag}})
		}
	}
	return out
}

// split cuts s into pieces of at most n runes.
func split(s string, n int) []string {
	var pieces []string
	runes := []rune(s)
	for len(runes) > 0 {
		k := min(n, len(runes))
		pieces = append(pieces, string(runes[:k]))
		runes = runes[k:]
	}
	return pieces
}

// stream writes c as server-sent events: the deltas, a closing chunk with
// the finish reason, a usage chunk with no choices when includeUsage is set,
// and "data: [DONE]".
func (s *Server) stream(ctx context.Context, w http.ResponseWriter, c completion, includeUsage bool) {
	w.Header().Set("Content-Type", "text/event-stream")
	w.Header().Set("Cache-Control", "no-cache")
	w.WriteHeader(http.StatusOK)
	rc := http.NewResponseController(w)
	chunk := wireCompletion{ID: c.id, Object: "chat.completion.chunk", Created: time.Now().Unix(), Model: c.model}
	wait := s.cfg.firstTokenLatency
	for _, d := range s.deltas(c.reply) {
		chunk.Choices = []wireChoice{{Delta: &d}}
		if !sleep(ctx, wait) || !writeEvent(w, rc, chunk) {
			return
		}
		wait = s.cfg.tokenLatency
	}
	chunk.Choices = []wireChoice{{Delta: &wireOutput{}, FinishReason: finishReason(c.reply)}}
	if !sleep(ctx, wait) || !writeEvent(w, rc, chunk) {
		return
	}
	if includeUsage {
		chunk.Choices, chunk.Usage = []wireChoice{}, c.usage.wire()
		if !writeEvent(w, rc, chunk) {
			return
		}
	}
	if _, err := w.Write([]byte("data: [DONE]\n\n")); err == nil {
		_ = rc.Flush()
	}
}

// writeEvent writes one "data:" event and flushes it; it reports success.
func writeEvent(w http.ResponseWriter, rc *http.ResponseController, v any) bool {
	b, err := json.Marshal(v)
	if err != nil {
		return false
	}
	buf := make([]byte, 0, len(b)+8)
	buf = append(append(append(buf, "data: "...), b...), "\n\n"...)
	if _, err := w.Write(buf); err != nil {
		return false
	}
	return rc.Flush() == nil
}
