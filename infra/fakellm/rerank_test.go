package fakellm_test

import (
	"net/http"
	"testing"
	"time"

	"github.com/pergola-ai/pergola/infra/fakellm"
)

func TestRerankOrdersByRelevance(t *testing.T) {
	s := fakellm.Start(t)
	status, body := postJSON(t, s, "/v1/rerank", map[string]any{
		"model": "jina-reranker-v2", "query": "how do I water the garden robot",
		"documents": []any{"quarterly revenue grew", map[string]any{"text": "the garden robot needs water daily"}, "robots in gardens"},
		"top_n":     2,
	})
	if status != 200 {
		t.Fatalf("rerank: %d %v", status, body)
	}
	results := body["results"].([]any)
	if len(results) != 2 {
		t.Fatalf("got %d results, want top_n 2", len(results))
	}
	first, second := results[0].(map[string]any), results[1].(map[string]any)
	if first["index"] != 1.0 || first["relevance_score"].(float64) < second["relevance_score"].(float64) {
		t.Errorf("results %v: want document 1 first, scores descending", results)
	}
	if doc := first["document"].(map[string]any); doc["text"] != "the garden robot needs water daily" {
		t.Errorf("document = %v", doc)
	}
}

func TestRerankRefusals(t *testing.T) {
	s := fakellm.Start(t)
	for _, c := range []struct {
		name, param string
		body        map[string]any
	}{
		{"missing model", "model", map[string]any{"query": "q", "documents": []string{"a"}}},
		{"missing query", "query", map[string]any{"model": "m", "documents": []string{"a"}}},
		{"no documents", "documents", map[string]any{"model": "m", "query": "q", "documents": []string{}}},
		{"top_n zero", "top_n", map[string]any{"model": "m", "query": "q", "documents": []string{"a"}, "top_n": 0}},
	} {
		status, body := postJSON(t, s, "/v1/rerank", c.body)
		e, _ := body["error"].(map[string]any)
		if status != 400 || e["param"] != c.param {
			t.Errorf("%s: got %d %v, want 400 naming %s", c.name, status, body, c.param)
		}
	}
}

func TestFailEmbeddingsAndStats(t *testing.T) {
	s := fakellm.Start(t)
	s.FailEmbeddings(2, fakellm.EmbedFault{Status: http.StatusTooManyRequests, RetryAfter: 1500 * time.Millisecond})
	req := map[string]any{"model": "m", "input": []string{"a", "b", "c"}}
	for i := range 2 {
		resp := rawPost(t, s, "/v1/embeddings", req)
		if resp.StatusCode != 429 || resp.Header.Get("Retry-After") != "2" || resp.Header.Get("retry-after-ms") != "1500" {
			t.Errorf("request %d: %d Retry-After %q retry-after-ms %q; want 429, 2, 1500", i, resp.StatusCode,
				resp.Header.Get("Retry-After"), resp.Header.Get("retry-after-ms"))
		}
	}
	if status, _ := postJSON(t, s, "/v1/embeddings", req); status != 200 {
		t.Errorf("third request: %d, want 200 once the faults are used up", status)
	}
	postJSON(t, s, "/v1/rerank", map[string]any{"model": "m", "query": "q", "documents": []string{"a", "b"}})
	want := fakellm.EmbedStats{Requests: 3, Inputs: 9, RerankRequests: 1, Documents: 2}
	if got := s.EmbedStats(); got != want {
		t.Errorf("stats = %+v, want %+v", got, want)
	}
	resp, err := http.Get(s.BaseURL() + "/fake/stats")
	if err != nil || resp.StatusCode != 200 {
		t.Fatalf("GET /v1/fake/stats: %v %v", resp, err)
	}
	resp.Body.Close()
	s.Reset()
	if got := s.EmbedStats(); got != (fakellm.EmbedStats{}) {
		t.Errorf("stats after Reset = %+v", got)
	}
}
