package provider_test

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/pergola-ai/pergola/domain/errs"
	"github.com/pergola-ai/pergola/domain/llm"
	"github.com/pergola-ai/pergola/infra/fakellm"
	"github.com/pergola-ai/pergola/infra/provider"
)

func embedModel(baseURL, name string, dims int) llm.Model {
	return llm.Model{ID: "emb", Kind: llm.KindEmbedding, Provider: llm.ProviderOpenAI, BaseURL: baseURL,
		APIKey: "sk-secret-embed-key", Model: name, Dimensions: dims, Enabled: true}
}

func texts(n int) []string {
	out := make([]string, n)
	for i := range out {
		out[i] = fmt.Sprintf("document number %d about topic %d", i, i%7)
	}
	return out
}

func TestEmbedBatchesInOrder(t *testing.T) {
	s := fakellm.Start(t)
	in := texts(150)
	vecs, err := provider.Factory{EmbedBatch: 64}.Embed(context.Background(), embedModel(s.BaseURL(), "text-embedding-3-small", 0), in)
	if err != nil {
		t.Fatalf("embed: %v", err)
	}
	if got := s.EmbedStats(); got.Requests != 3 || got.Inputs != 150 {
		t.Errorf("fake saw %+v, want 3 requests (64+64+22) carrying 150 inputs", got)
	}
	if len(vecs) != 150 {
		t.Fatalf("got %d vectors, want 150", len(vecs))
	}
	for _, i := range []int{0, 63, 64, 127, 128, 149} {
		if want := fakellm.Embed(in[i], fakellm.DefaultDimensions); fakellm.Cosine(vecs[i], want) < 0.999999 {
			t.Errorf("vector %d is not the vector of text %d: batches out of order", i, i)
		}
	}
}

func TestEmbedDefaultBatch(t *testing.T) {
	s := fakellm.Start(t)
	if _, err := (provider.Factory{}).Embed(context.Background(), embedModel(s.BaseURL(), "m", 0), texts(65)); err != nil {
		t.Fatal(err)
	}
	if got := s.EmbedStats().Requests; got != 2 {
		t.Errorf("65 texts took %d requests, want 2 with the default batch of %d", got, provider.DefaultEmbedBatch)
	}
}

func TestEmbedDimensions(t *testing.T) {
	s := fakellm.Start(t)
	vecs, err := provider.Factory{}.Embed(context.Background(), embedModel(s.BaseURL(), "text-embedding-3-large", 48), []string{"hi"})
	if err != nil || len(vecs[0]) != 48 {
		t.Fatalf("got %d dimensions (err %v), want the configured 48 sent to the API", len(vecs[0]), err)
	}
	// A model of fixed length 16 ignores the requested 48.
	_, err = provider.Factory{}.Embed(context.Background(), embedModel(s.BaseURL(), "local-embed-dim16", 48), []string{"hi"})
	if err == nil || !strings.Contains(err.Error(), "emb") || !strings.Contains(err.Error(), "16") || !strings.Contains(err.Error(), "48") {
		t.Errorf("dimension mismatch error = %v; want one naming the model, 16 and 48", err)
	}
}

func TestEmbedRetriesHonourRetryAfter(t *testing.T) {
	s := fakellm.Start(t)
	s.FailEmbeddings(1, fakellm.EmbedFault{Status: http.StatusTooManyRequests, RetryAfter: time.Second})
	s.FailEmbeddings(2, fakellm.EmbedFault{Status: http.StatusServiceUnavailable, RetryAfter: 20 * time.Millisecond})
	vecs, err := provider.Factory{}.Embed(context.Background(), embedModel(s.BaseURL(), "m", 0), []string{"retry me"})
	if err != nil || len(vecs) != 1 {
		t.Fatalf("embed after a 429 and two 503s: %v", err)
	}
	if got := s.EmbedStats().Requests; got != 4 {
		t.Errorf("fake saw %d requests, want 4 (three failures, then success)", got)
	}
}

func TestEmbedGivesUpReadably(t *testing.T) {
	s := fakellm.Start(t)
	s.FailEmbeddings(10, fakellm.EmbedFault{Status: http.StatusInternalServerError, RetryAfter: 10 * time.Millisecond})
	f := provider.Factory{RetryAttempts: 3}
	_, err := f.Embed(context.Background(), embedModel(s.BaseURL(), "m", 0), []string{"x"})
	if err == nil || !strings.Contains(err.Error(), "embedding model emb: the provider answered HTTP 500") {
		t.Fatalf("error = %v; want the model and HTTP 500", err)
	}
	if got := s.EmbedStats().Requests; got != 3 {
		t.Errorf("fake saw %d requests, want RetryAttempts = 3", got)
	}
}

func TestEmbedRetryRespectsContext(t *testing.T) {
	s := fakellm.Start(t)
	s.FailEmbeddings(1, fakellm.EmbedFault{Status: http.StatusTooManyRequests, RetryAfter: 30 * time.Second})
	ctx, cancel := context.WithTimeout(context.Background(), 200*time.Millisecond)
	defer cancel()
	_, err := provider.Factory{}.Embed(ctx, embedModel(s.BaseURL(), "m", 0), []string{"x"})
	if !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("error = %v; want the context's deadline, not a 30s wait", err)
	}
	if got := s.EmbedStats().Requests; got != 1 {
		t.Errorf("fake saw %d requests, want 1", got)
	}
}

func TestEmbedProviderRefusals(t *testing.T) {
	s := fakellm.Start(t, fakellm.WithAPIKey("the-right-key"))
	_, err := provider.Factory{}.Embed(context.Background(), embedModel(s.BaseURL(), "m", 0), []string{"x"})
	if err == nil || !strings.Contains(err.Error(), "HTTP 401: Incorrect API key provided.") || strings.Contains(err.Error(), "sk-secret") {
		t.Errorf("wrong key: error = %v; want HTTP 401 with the provider's message and no key", err)
	}
	m := embedModel(s.BaseURL(), "m", 0)
	m.APIKey = "the-right-key"
	_, err = provider.Factory{}.Embed(context.Background(), m, []string{"ok", ""})
	if err == nil || !strings.Contains(err.Error(), "HTTP 400: '$.input' is invalid") {
		t.Errorf("empty text: error = %v; want the provider's 400", err)
	}
}

func TestEmbedNeedsAnEmbeddingModel(t *testing.T) {
	chat := openAIModel("http://127.0.0.1:1/v1")
	_, err := provider.Factory{}.Embed(context.Background(), chat, []string{"x"})
	if !errors.Is(err, errs.ErrInvalid) || !strings.Contains(err.Error(), "model_id") {
		t.Errorf("chat model: error = %v; want invalid model_id", err)
	}
}

// TestEmbedRetriesADroppedConnection: a provider that drops the
// connection before answering (as one closing a kept-alive connection
// does) is asked again, and the second answer is used.
func TestEmbedRetriesADroppedConnection(t *testing.T) {
	var calls atomic.Int32
	s := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if calls.Add(1) == 1 {
			conn, _, err := w.(http.Hijacker).Hijack()
			if err == nil {
				_ = conn.Close()
			}
			return
		}
		w.Header().Set("Content-Type", "application/json")
		_, _ = io.WriteString(w, `{"object":"list","model":"m","data":[{"object":"embedding","index":0,"embedding":[0.6,0.8]}],"usage":{"prompt_tokens":1,"total_tokens":1}}`)
	}))
	defer s.Close()
	vecs, err := provider.Factory{}.Embed(context.Background(), embedModel(s.URL+"/v1", "m", 0), []string{"x"})
	if err != nil || len(vecs) != 1 || calls.Load() != 2 {
		t.Fatalf("embed after a dropped connection: %v (%d vectors, %d calls); want one vector after two calls", err, len(vecs), calls.Load())
	}
}
