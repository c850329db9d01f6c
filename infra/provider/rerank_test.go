package provider_test

import (
	"context"
	"errors"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/pergola-ai/pergola/domain/errs"
	"github.com/pergola-ai/pergola/domain/llm"
	"github.com/pergola-ai/pergola/infra/fakellm"
	"github.com/pergola-ai/pergola/infra/provider"
)

func rerankModel(baseURL string) llm.Model {
	return llm.Model{ID: "rr", Kind: llm.KindRerank, Provider: llm.ProviderOpenAI, BaseURL: baseURL,
		APIKey: "sk-rerank", Model: "jina-reranker-v2-base-multilingual", Enabled: true}
}

func TestRerank(t *testing.T) {
	s := fakellm.Start(t)
	docs := []string{"stock prices fell today", "the garden robot waters the flowers", "花园机器人浇花", "robots"}
	got, err := provider.Factory{}.Rerank(context.Background(), rerankModel(s.BaseURL()), "garden robot waters flowers", docs, 2)
	if err != nil {
		t.Fatalf("rerank: %v", err)
	}
	if len(got) != 2 || got[0].Index != 1 || got[0].Score < got[1].Score {
		t.Errorf("ranked %+v; want 2 results, document 1 first, best first", got)
	}
}

func TestRerankRetriesAndFails(t *testing.T) {
	s := fakellm.Start(t)
	s.FailEmbeddings(1, fakellm.EmbedFault{Status: http.StatusTooManyRequests, RetryAfter: 10 * time.Millisecond})
	if _, err := (provider.Factory{}).Rerank(context.Background(), rerankModel(s.BaseURL()), "q", []string{"a", "b"}, 0); err != nil {
		t.Fatalf("rerank after one 429: %v", err)
	}
	if got := s.EmbedStats().RerankRequests; got != 2 {
		t.Errorf("fake saw %d rerank requests, want 2", got)
	}
	_, err := provider.Factory{}.Rerank(context.Background(), rerankModel(s.BaseURL()), "", []string{"a"}, 1)
	if err == nil || !strings.Contains(err.Error(), "rerank model rr: the provider answered HTTP 400: query must be a non-empty string") {
		t.Errorf("empty query: error = %v; want the provider's 400 and message", err)
	}
	_, err = provider.Factory{}.Rerank(context.Background(), embedModel(s.BaseURL(), "m", 0), "q", []string{"a"}, 1)
	if !errors.Is(err, errs.ErrInvalid) {
		t.Errorf("embedding model used to rerank: error = %v; want invalid", err)
	}
}
