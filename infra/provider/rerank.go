package provider

import (
	"bytes"
	"cmp"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"slices"

	"github.com/pergola-ai/pergola/domain/errs"
	"github.com/pergola-ai/pergola/domain/knowledge"
	"github.com/pergola-ai/pergola/domain/llm"
)

// The rerank wire format shared by Jina, Cohere (v2), Xinference and vLLM.

type rerankRequest struct {
	Model     string   `json:"model"`
	Query     string   `json:"query"`
	Documents []string `json:"documents"`
	TopN      int      `json:"top_n,omitempty"`
	// ReturnDocuments false keeps the answer small: Jina echoes the
	// documents by default, and the caller has them already.
	ReturnDocuments bool `json:"return_documents"`
}

type rerankResponse struct {
	Results []struct {
		Index          int      `json:"index"`
		RelevanceScore *float64 `json:"relevance_score"`
	} `json:"results"`
}

// Rerank asks the rerank model m to order docs by relevance to query and
// returns at most topN verdicts (all when topN <= 0), best first, as the
// provider ranked them: POST {base_url}/rerank with {model, query,
// documents, top_n}, retried on 429 and 5xx like Embed. It returns an error
// matching errs.ErrInvalid when m is not an OpenAI-compatible rerank model,
// and an error naming the model when the provider fails (HTTP status and a
// short excerpt of its answer) or answers with an index out of range.
func (f Factory) Rerank(ctx context.Context, m llm.Model, query string, docs []string, topN int) ([]knowledge.Ranked, error) {
	if m.KindOrChat() != llm.KindRerank || m.Provider != llm.ProviderOpenAI {
		return nil, errs.Invalid("model_id", "model %q is of kind %q with provider %q; reranking needs a model of kind %q with provider %q",
			m.ID, m.KindOrChat(), m.Provider, llm.KindRerank, llm.ProviderOpenAI)
	}
	if len(docs) == 0 {
		return nil, nil
	}
	if topN <= 0 || topN > len(docs) {
		topN = len(docs)
	}
	body, err := f.postRerank(ctx, m, rerankRequest{Model: m.Model, Query: query, Documents: docs, TopN: topN})
	if err != nil {
		return nil, err
	}
	return parseRanked(m, body, len(docs), topN)
}

func (f Factory) postRerank(ctx context.Context, m llm.Model, r rerankRequest) ([]byte, error) {
	payload, err := json.Marshal(r)
	if err != nil {
		return nil, fmt.Errorf("rerank model %s: %w", m.ID, err)
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, baseURL(m)+"/rerank", bytes.NewReader(payload))
	if err != nil {
		return nil, errs.Invalid("base_url", "rerank model %q: %v", m.ID, err)
	}
	req.Header.Set("Content-Type", "application/json")
	if m.APIKey != "" {
		req.Header.Set("Authorization", "Bearer "+m.APIKey)
	}
	resp, err := f.retryingClient().Do(req)
	if err != nil {
		return nil, providerError("rerank", m, err)
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(io.LimitReader(resp.Body, 16<<20))
	if err != nil {
		return nil, providerError("rerank", m, err)
	}
	if resp.StatusCode/100 != 2 {
		return nil, providerError("rerank", m, fmt.Errorf("the provider answered HTTP %d: %s", resp.StatusCode, errorMessage(body)))
	}
	return body, nil
}

// errorMessage picks the message out of an error body in the usual shapes
// ({error:{message}}, {error:"..."}, {detail}, {message}), else the body.
func errorMessage(body []byte) string {
	var shapes struct {
		Error   json.RawMessage `json:"error"`
		Detail  any             `json:"detail"`
		Message string          `json:"message"`
	}
	if json.Unmarshal(body, &shapes) == nil {
		var nested struct {
			Message string `json:"message"`
		}
		var plain string
		switch {
		case json.Unmarshal(shapes.Error, &nested) == nil && nested.Message != "":
			return excerpt(nested.Message)
		case json.Unmarshal(shapes.Error, &plain) == nil && plain != "":
			return excerpt(plain)
		case shapes.Detail != nil:
			return excerpt(fmt.Sprint(shapes.Detail))
		case shapes.Message != "":
			return excerpt(shapes.Message)
		}
	}
	return excerpt(string(body))
}

func parseRanked(m llm.Model, body []byte, docs, topN int) ([]knowledge.Ranked, error) {
	var resp rerankResponse
	if err := json.Unmarshal(body, &resp); err != nil {
		return nil, fmt.Errorf("rerank model %s: the provider's answer is not a rerank result: %s", m.ID, excerpt(string(body)))
	}
	out := make([]knowledge.Ranked, 0, min(len(resp.Results), topN))
	for _, r := range resp.Results {
		if r.Index < 0 || r.Index >= docs || r.RelevanceScore == nil {
			return nil, fmt.Errorf("rerank model %s: the provider answered a result for document %d without a score or out of range (0-%d)", m.ID, r.Index, docs-1)
		}
		out = append(out, knowledge.Ranked{Index: r.Index, Score: *r.RelevanceScore})
	}
	// Jina, Cohere and vLLM sort already; others need not.
	slices.SortStableFunc(out, func(a, b knowledge.Ranked) int { return cmp.Compare(b.Score, a.Score) })
	if len(out) > topN {
		out = out[:topN]
	}
	return out, nil
}
