package chat

import (
	"context"
	"encoding/base64"
	"encoding/binary"
	"encoding/json"
	"math"
	"strconv"
	"unicode/utf8"

	"github.com/cloudwego/hertz/pkg/app"

	"github.com/pergola-ai/pergola/backend/api/httpx"
	"github.com/pergola-ai/pergola/domain/errs"
)

// Embedder embeds texts with a platform model of kind embedding; an
// unknown, disabled or non-embedding model is errs.ErrInvalid naming
// "model".
type Embedder interface {
	Embed(ctx context.Context, modelID string, texts []string) ([][]float32, error)
}

// Embeddings serves POST /v1/embeddings, OpenAI's embeddings API over the
// platform's embedding models (the ones knowledge bases use).
type Embeddings struct {
	Embedder Embedder
}

// maxEmbedInputs bounds the texts of one request, as OpenAI does.
const maxEmbedInputs = 2048

type embedRequest struct {
	Model          string          `json:"model"`
	Input          json.RawMessage `json:"input"`
	EncodingFormat string          `json:"encoding_format"`
	Dimensions     *int            `json:"dimensions"`
}

// Create answers POST /v1/embeddings: {model, input: a string or strings,
// encoding_format: float | base64} in, OpenAI's list of embeddings out.
// usage counts tokens as about four characters each: the provider's own
// count does not come back through the embedder.
func (h Embeddings) Create(ctx context.Context, c *app.RequestContext) error {
	if h.Embedder == nil {
		return errs.New(errs.ErrUnavailable, "embeddings are not configured on this server")
	}
	var req embedRequest
	if err := httpx.BindJSON(c, &req); err != nil {
		return err
	}
	if req.Model == "" {
		return errs.Invalid("model", "is required: the id of a model of kind embedding (GET /api/models?kind=embedding lists them)")
	}
	if req.EncodingFormat != "" && req.EncodingFormat != "float" && req.EncodingFormat != "base64" {
		return errs.Invalid("encoding_format", `must be "float" or "base64"; got %q`, req.EncodingFormat)
	}
	texts, err := embedInput(req.Input)
	if err != nil {
		return err
	}
	if req.Dimensions != nil && *req.Dimensions < 1 {
		return errs.Invalid("dimensions", "must be a positive integer; got %d", *req.Dimensions)
	}
	vecs, err := h.Embedder.Embed(ctx, req.Model, texts)
	if err != nil {
		return err
	}
	if d := req.Dimensions; d != nil && len(vecs) > 0 && len(vecs[0]) != *d {
		return errs.Invalid("dimensions", "model %s gives vectors of %d dimensions (its configuration decides them); send %d or leave dimensions out", req.Model, len(vecs[0]), len(vecs[0]))
	}
	data := make([]map[string]any, len(vecs))
	tokens := 0
	for i, v := range vecs {
		data[i] = map[string]any{"object": "embedding", "index": i, "embedding": encodeVector(v, req.EncodingFormat)}
		tokens += (utf8.RuneCountInString(texts[i]) + 3) / 4
	}
	c.JSON(200, map[string]any{"object": "list", "data": data, "model": req.Model,
		"usage": map[string]int{"prompt_tokens": tokens, "total_tokens": tokens}})
	return nil
}

// embedInput reads input: a string or a list of strings, none empty.
func embedInput(raw json.RawMessage) ([]string, error) {
	var one string
	if json.Unmarshal(raw, &one) == nil {
		raw, _ = json.Marshal([]string{one})
	}
	var texts []string
	if err := json.Unmarshal(raw, &texts); err != nil || len(texts) == 0 {
		return nil, errs.Invalid("input", "must be a string or a non-empty array of strings (token arrays are not accepted)")
	}
	if len(texts) > maxEmbedInputs {
		return nil, errs.Invalid("input", "at most %d inputs; got %d", maxEmbedInputs, len(texts))
	}
	for i, t := range texts {
		if t == "" {
			return nil, errs.Invalid("input["+strconv.Itoa(i)+"]", "must not be empty")
		}
	}
	return texts, nil
}

// encodeVector is a vector as OpenAI sends it: numbers, or with base64
// the little-endian float32 bytes.
func encodeVector(v []float32, format string) any {
	if format != "base64" {
		return v
	}
	b := make([]byte, 4*len(v))
	for i, f := range v {
		binary.LittleEndian.PutUint32(b[4*i:], math.Float32bits(f))
	}
	return base64.StdEncoding.EncodeToString(b)
}
