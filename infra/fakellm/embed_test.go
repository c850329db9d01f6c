package fakellm_test

import (
	"bytes"
	"context"
	"encoding/json"
	"math"
	"net/http"
	"strings"
	"testing"

	embopenai "github.com/cloudwego/eino-ext/components/embedding/openai"

	"github.com/pergola-ai/pergola/infra/fakellm"
)

// newEmbedder returns eino-ext's real OpenAI embedder pointed at s.
func newEmbedder(t *testing.T, s *fakellm.Server, model string, cfg embopenai.EmbeddingConfig) *embopenai.Embedder {
	t.Helper()
	cfg.BaseURL, cfg.APIKey, cfg.Model = s.BaseURL(), "test-key", model
	e, err := embopenai.NewEmbedder(context.Background(), &cfg)
	if err != nil {
		t.Fatalf("new embedder: %v", err)
	}
	return e
}

func cosine(a, b []float64) float64 {
	var dot, na, nb float64
	for i := range a {
		dot, na, nb = dot+a[i]*b[i], na+a[i]*a[i], nb+b[i]*b[i]
	}
	return dot / math.Sqrt(na*nb)
}

func TestEmbeddingsThroughEinoClient(t *testing.T) {
	s := fakellm.Start(t)
	e := newEmbedder(t, s, "text-embedding-3-small", embopenai.EmbeddingConfig{})
	vecs, err := e.EmbedStrings(context.Background(), []string{
		"The cat sat on the warm mat",
		"A cat sat on a mat",
		"Quarterly revenue grew by ten percent",
		"花园里的机器人会浇花",
		"机器人在花园里浇花",
		"股票市场今天下跌",
	})
	if err != nil {
		t.Fatalf("embed: %v", err)
	}
	if len(vecs) != 6 || len(vecs[0]) != fakellm.DefaultDimensions {
		t.Fatalf("got %d vectors of %d, want 6 of %d", len(vecs), len(vecs[0]), fakellm.DefaultDimensions)
	}
	var norm float64
	for _, x := range vecs[0] {
		norm += x * x
	}
	if math.Abs(norm-1) > 1e-5 {
		t.Errorf("|v|^2 = %v, want 1 (L2-normalised)", norm)
	}
	if near, far := cosine(vecs[0], vecs[1]), cosine(vecs[0], vecs[2]); near <= far {
		t.Errorf("similar English texts score %.3f, unrelated %.3f; want similar higher", near, far)
	}
	if near, far := cosine(vecs[3], vecs[4]), cosine(vecs[3], vecs[5]); near <= far {
		t.Errorf("similar Chinese texts score %.3f, unrelated %.3f; want similar higher", near, far)
	}
	again, err := e.EmbedStrings(context.Background(), []string{"The cat sat on the warm mat"})
	if err != nil || cosine(again[0], vecs[0]) < 0.999999 {
		t.Errorf("the same text embedded twice differs (err %v)", err)
	}
}

func TestEmbeddingsDimensions(t *testing.T) {
	s := fakellm.Start(t)
	dims := 64
	byRequest := newEmbedder(t, s, "text-embedding-3-large", embopenai.EmbeddingConfig{Dimensions: &dims})
	byName := newEmbedder(t, s, "fake-embed-dim32", embopenai.EmbeddingConfig{Dimensions: &dims})
	for name, c := range map[string]struct {
		e    *embopenai.Embedder
		want int
	}{"request dimensions": {byRequest, 64}, "model name -dim32 wins": {byName, 32}} {
		v, err := c.e.EmbedStrings(context.Background(), []string{"hello world"})
		if err != nil || len(v[0]) != c.want {
			t.Errorf("%s: got %d dimensions (err %v), want %d", name, len(v[0]), err, c.want)
		}
	}
}

func TestEmbeddingsBase64MatchesFloat(t *testing.T) {
	s := fakellm.Start(t)
	b64 := embopenai.EmbeddingEncodingFormatBase64
	floats := newEmbedder(t, s, "m", embopenai.EmbeddingConfig{})
	packed := newEmbedder(t, s, "m", embopenai.EmbeddingConfig{EncodingFormat: &b64})
	a, err := floats.EmbedStrings(context.Background(), []string{"base64 vectors"})
	if err != nil {
		t.Fatal(err)
	}
	b, err := packed.EmbedStrings(context.Background(), []string{"base64 vectors"})
	if err != nil {
		t.Fatal(err)
	}
	if len(a[0]) != len(b[0]) || cosine(a[0], b[0]) < 0.999999 {
		t.Errorf("base64 vector differs from the float one")
	}
}

// postJSON sends body to path and returns the status and decoded body.
func postJSON(t *testing.T, s *fakellm.Server, path string, body any) (int, map[string]any) {
	t.Helper()
	b, _ := json.Marshal(body)
	url := strings.TrimSuffix(s.BaseURL(), "/v1") + path
	resp, err := http.Post(url, "application/json", bytes.NewReader(b))
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var out map[string]any
	if err := json.NewDecoder(resp.Body).Decode(&out); err != nil {
		t.Fatalf("decode: %v", err)
	}
	return resp.StatusCode, out
}

func TestEmbeddingsRefusals(t *testing.T) {
	s := fakellm.Start(t)
	many := make([]string, fakellm.MaxEmbedInputs+1)
	for i := range many {
		many[i] = "x"
	}
	long := strings.Repeat("abcd", fakellm.MaxEmbedTokens+1)
	cases := []struct {
		name  string
		body  map[string]any
		param any
		says  string
	}{
		{"missing model", map[string]any{"input": "hi"}, nil, "model parameter"},
		{"missing input", map[string]any{"model": "m"}, "input", "'$.input' is invalid"},
		{"empty string", map[string]any{"model": "m", "input": ""}, "input", "'$.input' is invalid"},
		{"empty string in array", map[string]any{"model": "m", "input": []string{"a", ""}}, "input", "'$.input' is invalid"},
		{"empty array", map[string]any{"model": "m", "input": []string{}}, "input", "'$.input' is invalid"},
		{"too many inputs", map[string]any{"model": "m", "input": many}, "input", "at most 2048"},
		{"input too long", map[string]any{"model": "m", "input": long}, "input", "maximum context length is 8192 tokens"},
		{"bad encoding_format", map[string]any{"model": "m", "input": "hi", "encoding_format": "int8"}, "encoding_format", "Supported values are: 'float' and 'base64'"},
		{"zero dimensions", map[string]any{"model": "m", "input": "hi", "dimensions": 0}, "dimensions", "Expected a value >= 1"},
		{"negative dimensions", map[string]any{"model": "m", "input": "hi", "dimensions": -3}, "dimensions", "but got -3"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			status, body := postJSON(t, s, "/v1/embeddings", c.body)
			e, _ := body["error"].(map[string]any)
			if status != 400 || e["type"] != "invalid_request_error" || e["param"] != c.param {
				t.Fatalf("got %d %v, want 400 invalid_request_error param %v", status, body, c.param)
			}
			if msg, _ := e["message"].(string); !strings.Contains(msg, c.says) {
				t.Errorf("message %q does not say %q", msg, c.says)
			}
		})
	}
}

func TestEmbeddingsTokenInputsAndUsage(t *testing.T) {
	s := fakellm.Start(t)
	status, body := postJSON(t, s, "/v1/embeddings", map[string]any{"model": "m", "input": [][]int{{1, 2, 3}, {4, 5}}})
	if status != 200 {
		t.Fatalf("token arrays: %d %v", status, body)
	}
	usage := body["usage"].(map[string]any)
	if data := body["data"].([]any); len(data) != 2 || usage["prompt_tokens"] != 5.0 {
		t.Errorf("got %d vectors, usage %v; want 2 and 5 prompt tokens", len(data), usage)
	}
	_, body = postJSON(t, s, "/v1/embeddings", map[string]any{"model": "m", "input": []string{"abcdefgh", "abc"}})
	if got := body["usage"].(map[string]any)["prompt_tokens"]; got != 3.0 {
		t.Errorf("prompt_tokens = %v, want 3 (ceil(8/4)+ceil(3/4))", got)
	}
}

// rawPost sends body to path and returns the response, body closed.
func rawPost(t *testing.T, s *fakellm.Server, path string, body any) *http.Response {
	t.Helper()
	b, _ := json.Marshal(body)
	resp, err := http.Post(strings.TrimSuffix(s.BaseURL(), "/v1")+path, "application/json", bytes.NewReader(b))
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	return resp
}
