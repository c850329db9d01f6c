package provider_test

import (
	"context"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"github.com/pergola-ai/pergola/domain/llm"
	"github.com/pergola-ai/pergola/infra/fakellm"
	"github.com/pergola-ai/pergola/infra/provider"
)

// pongServer is a fake OpenAI endpoint that answers the probe prompt.
func pongServer(t *testing.T, opts ...fakellm.Option) *fakellm.Server {
	t.Helper()
	s := fakellm.Start(t, opts...)
	s.When(func(r fakellm.Request) bool { return r.LastUserText() == provider.ProbePrompt },
		func(fakellm.Request) fakellm.Reply { return fakellm.Text(" pong\n") })
	return s
}

func TestProbe(t *testing.T) {
	okOpenAI := pongServer(t)
	wrongKey := pongServer(t, fakellm.WithAPIKey("another-key"))
	slow := pongServer(t, fakellm.WithFirstTokenLatency(time.Minute))
	geminiOK := newGeminiFake(t, textPart("pong"))
	geminiDenied := newGeminiFake(t)
	geminiDenied.status = http.StatusUnauthorized
	notGemini := httptest.NewServer(http.NotFoundHandler())
	t.Cleanup(notGemini.Close)
	wrongShape := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		w.WriteHeader(http.StatusNotFound)
		_, _ = w.Write([]byte(`{"detail":"Not Found"}`))
	}))
	t.Cleanup(wrongShape.Close)

	cases := []struct {
		name string
		m    llm.Model
		want provider.ProbeResult
	}{
		{"openai ok", openAIModel(okOpenAI.BaseURL()),
			// ceil(25/4) prompt tokens, ceil(6/4) completion tokens.
			provider.ProbeResult{OK: true, Reply: "pong", InputTokens: 7, OutputTokens: 2}},
		{"openai 401", openAIModel(wrongKey.BaseURL()),
			provider.ProbeResult{Error: "the provider answered HTTP 401: Incorrect API key provided."}},
		{"openai timeout", openAIModel(slow.BaseURL()),
			provider.ProbeResult{Error: "no answer within 200ms"}},
		{"gemini ok", geminiModel(geminiOK.URL),
			provider.ProbeResult{OK: true, Reply: "pong", InputTokens: 5, OutputTokens: 2}},
		{"gemini 401", geminiModel(geminiDenied.URL),
			provider.ProbeResult{Error: "the provider answered HTTP 401 (UNAUTHENTICATED): API key not valid. Please pass a valid API key."}},
		{"gemini URL answering text", geminiModel(notGemini.URL),
			provider.ProbeResult{Error: "the provider answered HTTP 404 (404 Not Found): 404 page not found"}},
		// genai v1.13.0 crashes on this body unless the factory rewrites it.
		{"gemini URL answering other JSON", geminiModel(wrongShape.URL),
			provider.ProbeResult{Error: `the provider answered HTTP 404 (Not Found): {"detail":"Not Found"}`}},
		{"unknown provider", llm.Model{ID: "x", Provider: "claude", Model: "c"},
			provider.ProbeResult{Error: `provider: must be one of [openai gemini]; got "claude"`}},
	}
	f := provider.Factory{ProbeTimeout: 200 * time.Millisecond}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			got := f.Probe(context.Background(), tc.m)
			if diff := cmp.Diff(tc.want, got, cmpopts.IgnoreFields(provider.ProbeResult{}, "LatencyMS")); diff != "" {
				t.Errorf("probe (-want +got):\n%s", diff)
			}
			if got.LatencyMS < 0 {
				t.Errorf("latency = %d", got.LatencyMS)
			}
		})
	}
	if r := okOpenAI.Requests(); len(r) != 1 || r[0].Messages[0].Content != provider.ProbePrompt {
		t.Errorf("probe requests = %+v", r)
	}
}
