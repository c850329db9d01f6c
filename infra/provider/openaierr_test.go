package provider_test

import (
	"context"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/pergola-ai/pergola/infra/provider"
)

// TestProbeQuotesOpenAICompatibleErrorsShort: whatever a failing
// OpenAI-compatible server answers, the error names its status and a short
// excerpt of its words, never an empty message, a whole page, or the
// model's API key echoed back.
func TestProbeQuotesOpenAICompatibleErrorsShort(t *testing.T) {
	page := "<html><body>" + strings.Repeat("Bad gateway. ", 400) + "</body></html>"
	cases := []struct {
		name, body string
		status     int
		want       string
	}{
		{"error as a string", `{"error":"key sk-test is not allowed"}`, 401, "the provider answered HTTP 401: key **** is not allowed"},
		{"vLLM's shape", `{"object":"error","message":"model gpt-fake does not exist"}`, 404, "the provider answered HTTP 404: model gpt-fake does not exist"},
		{"OpenAI's shape echoing the key", `{"error":{"message":"Incorrect API key provided: sk-test","type":"invalid_request_error"}}`, 401,
			"the provider answered HTTP 401: Incorrect API key provided: ****"},
		{"an empty body", ``, 503, "the provider answered HTTP 503: Service Unavailable"},
		{"a whole HTML page", page, 502, "the provider answered HTTP 502: <html><body>Bad gateway. Bad gateway."},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
				w.WriteHeader(tc.status)
				_, _ = w.Write([]byte(tc.body))
			}))
			defer srv.Close()
			got := provider.Factory{}.Probe(context.Background(), openAIModel(srv.URL))
			if got.OK || !strings.HasPrefix(got.Error, tc.want) || len([]rune(got.Error)) > 400 || strings.Contains(got.Error, "sk-test") {
				t.Fatalf("probe error = %q (%d characters); want it to start %q, within 400 characters, no key", got.Error, len([]rune(got.Error)), tc.want)
			}
		})
	}
}
