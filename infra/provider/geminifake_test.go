package provider_test

import (
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
)

// geminiFake answers the Gemini REST API the way google.golang.org/genai
// v1.13.0 calls it: POST {base}/{version}/models/{model}:generateContent,
// and :streamGenerateContent?alt=sse answered with "data: {json}\n\n"
// events, each a whole GenerateContentResponse.
type geminiFake struct {
	URL    string
	status int              // non-zero: fail with this status
	parts  []map[string]any // the reply's parts; streamed one per event

	mu    sync.Mutex
	calls []geminiCall
}

// geminiCall is one recorded request.
type geminiCall struct {
	Version, Model, Method, Alt, APIKey string
	Body                                map[string]any
}

func newGeminiFake(t *testing.T, parts ...map[string]any) *geminiFake {
	t.Helper()
	f := &geminiFake{parts: parts}
	srv := httptest.NewServer(http.HandlerFunc(f.serve))
	t.Cleanup(srv.Close)
	f.URL = srv.URL
	return f
}

func textPart(s string) map[string]any { return map[string]any{"text": s} }

func (f *geminiFake) recorded() []geminiCall {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([]geminiCall(nil), f.calls...)
}

func (f *geminiFake) serve(w http.ResponseWriter, r *http.Request) {
	// Path: /{version}/models/{model}:{method}
	segs := strings.Split(strings.TrimPrefix(r.URL.Path, "/"), "/")
	if r.Method != http.MethodPost || len(segs) != 3 || segs[1] != "models" {
		http.NotFound(w, r)
		return
	}
	model, method, _ := strings.Cut(segs[2], ":")
	c := geminiCall{Version: segs[0], Model: model, Method: method, Alt: r.URL.Query().Get("alt"), APIKey: r.Header.Get("x-goog-api-key")}
	_ = json.NewDecoder(r.Body).Decode(&c.Body)
	f.mu.Lock()
	f.calls = append(f.calls, c)
	f.mu.Unlock()

	w.Header().Set("Content-Type", "application/json")
	if f.status != 0 {
		w.WriteHeader(f.status)
		fmt.Fprintf(w, `{"error":{"code":%d,"message":"API key not valid. Please pass a valid API key.","status":"UNAUTHENTICATED"}}`, f.status)
		return
	}
	if method == "streamGenerateContent" {
		f.stream(w)
		return
	}
	_ = json.NewEncoder(w).Encode(geminiResponse(f.parts, true))
}

func (f *geminiFake) stream(w http.ResponseWriter) {
	w.Header().Set("Content-Type", "text/event-stream")
	for i, p := range f.parts {
		b, _ := json.Marshal(geminiResponse([]map[string]any{p}, i == len(f.parts)-1))
		fmt.Fprintf(w, "data: %s\r\n\r\n", b)
		w.(http.Flusher).Flush()
	}
}

// geminiResponse is a GenerateContentResponse; the last one carries the
// finish reason and the usage.
func geminiResponse(parts []map[string]any, last bool) map[string]any {
	cand := map[string]any{"index": 0, "content": map[string]any{"role": "model", "parts": parts}}
	resp := map[string]any{"candidates": []any{cand}, "modelVersion": "gemini-fake"}
	if last {
		cand["finishReason"] = "STOP"
		resp["usageMetadata"] = map[string]any{"promptTokenCount": 5, "candidatesTokenCount": 2, "totalTokenCount": 7}
	}
	return resp
}
