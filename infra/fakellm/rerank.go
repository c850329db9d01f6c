package fakellm

import (
	"cmp"
	"encoding/json"
	"net/http"
	"slices"
)

// The rerank endpoint speaks the shape Jina, Cohere, Xinference and vLLM
// share: {model, query, documents, top_n} in, {results:[{index,
// relevance_score}]} out, best first.

type wireRerankRequest struct {
	Model           string            `json:"model"`
	Query           string            `json:"query"`
	Documents       []json.RawMessage `json:"documents"`
	TopN            *int              `json:"top_n"`
	ReturnDocuments *bool             `json:"return_documents"`
}

type wireRerankResult struct {
	Index          int     `json:"index"`
	RelevanceScore float64 `json:"relevance_score"`
	Document       *struct {
		Text string `json:"text"`
	} `json:"document,omitempty"`
}

type wireRerankResponse struct {
	Model   string             `json:"model"`
	Results []wireRerankResult `json:"results"`
	Usage   struct {
		TotalTokens int `json:"total_tokens"`
	} `json:"usage"`
}

func (s *Server) rerank(w http.ResponseWriter, r *http.Request) {
	if !s.authorised(w, r) {
		return
	}
	var req wireRerankRequest
	if err := json.NewDecoder(r.Body).Decode(&req); err != nil {
		writeError(w, Fail(http.StatusBadRequest, "invalid JSON body: "+err.Error()), "")
		return
	}
	s.countRerank(len(req.Documents))
	docs, why, param := checkRerankRequest(req)
	if why != "" {
		writeError(w, Fail(http.StatusBadRequest, why), param)
		return
	}
	if f, ok := s.takeFault(); ok {
		writeFault(w, f)
		return
	}
	w.Header().Set("Content-Type", "application/json")
	_ = json.NewEncoder(w).Encode(rank(req, docs))
}

func checkRerankRequest(req wireRerankRequest) ([]string, string, string) {
	switch {
	case req.Model == "":
		return nil, "you must provide a model parameter", "model"
	case req.Query == "":
		return nil, "query must be a non-empty string", "query"
	case len(req.Documents) == 0:
		return nil, "documents must be a non-empty list", "documents"
	case req.TopN != nil && *req.TopN < 1:
		return nil, "top_n must be at least 1", "top_n"
	}
	docs := make([]string, len(req.Documents))
	for i, raw := range req.Documents {
		if json.Unmarshal(raw, &docs[i]) == nil {
			continue
		}
		var d struct {
			Text string `json:"text"`
		}
		if json.Unmarshal(raw, &d) != nil {
			return nil, "documents must be strings or objects with a text", "documents"
		}
		docs[i] = d.Text
	}
	return docs, "", ""
}

// rank scores each document by the cosine of its fake embedding with the
// query's, best first (ties by index), and keeps top_n.
func rank(req wireRerankRequest, docs []string) wireRerankResponse {
	q := Embed(req.Query, DefaultDimensions)
	resp := wireRerankResponse{Model: req.Model, Results: make([]wireRerankResult, len(docs))}
	resp.Usage.TotalTokens = countTokens(req.Query)
	for i, d := range docs {
		resp.Results[i] = wireRerankResult{Index: i, RelevanceScore: Cosine(q, Embed(d, DefaultDimensions))}
		if req.ReturnDocuments == nil || *req.ReturnDocuments {
			resp.Results[i].Document = &struct {
				Text string `json:"text"`
			}{d}
		}
		resp.Usage.TotalTokens += countTokens(d)
	}
	slices.SortStableFunc(resp.Results, func(a, b wireRerankResult) int {
		return cmp.Compare(b.RelevanceScore, a.RelevanceScore)
	})
	if req.TopN != nil && *req.TopN < len(resp.Results) {
		resp.Results = resp.Results[:*req.TopN]
	}
	return resp
}
