package fakellm

import (
	"encoding/base64"
	"encoding/binary"
	"encoding/json"
	"fmt"
	"math"
	"net/http"
	"regexp"
	"strconv"
)

// OpenAI's limits on POST /v1/embeddings, which the fake enforces.
const (
	MaxEmbedInputs = 2048 // inputs per request
	MaxEmbedTokens = 8192 // tokens per input
	MaxEmbedDims   = 4096 // the fake's own bound on dimensions
)

type wireEmbedRequest struct {
	Model          string          `json:"model"`
	Input          json.RawMessage `json:"input"`
	EncodingFormat *string         `json:"encoding_format"`
	Dimensions     *int            `json:"dimensions"`
	User           string          `json:"user"`
}

type wireEmbedding struct {
	Object    string `json:"object"`
	Index     int    `json:"index"`
	Embedding any    `json:"embedding"` // []float32, or a base64 string
}

type wireEmbedResponse struct {
	Object string          `json:"object"`
	Data   []wireEmbedding `json:"data"`
	Model  string          `json:"model"`
	Usage  struct {
		PromptTokens int `json:"prompt_tokens"`
		TotalTokens  int `json:"total_tokens"`
	} `json:"usage"`
}

// embedInput is one input: a text, or a token array read as text.
type embedInput struct {
	text   string
	tokens int
}

func (s *Server) embeddings(w http.ResponseWriter, r *http.Request) {
	if !s.authorised(w, r) {
		return
	}
	var req wireEmbedRequest
	if err := json.NewDecoder(r.Body).Decode(&req); err != nil {
		writeError(w, Fail(http.StatusBadRequest, "invalid JSON body: "+err.Error()), "")
		return
	}
	inputs, why, param := checkEmbedRequest(req)
	s.countEmbed(len(inputs))
	if why != "" {
		writeError(w, Fail(http.StatusBadRequest, why), param)
		return
	}
	if f, ok := s.takeFault(); ok {
		writeFault(w, f)
		return
	}
	writeEmbeddings(w, req, inputs)
}

// checkEmbedRequest returns the inputs, or why OpenAI would refuse the
// request and the parameter at fault.
func checkEmbedRequest(req wireEmbedRequest) ([]embedInput, string, string) {
	if req.Model == "" {
		return nil, "you must provide a model parameter", ""
	}
	if f := req.EncodingFormat; f != nil && *f != "float" && *f != "base64" {
		return nil, fmt.Sprintf("Invalid value: '%s'. Supported values are: 'float' and 'base64'.", *f), "encoding_format"
	}
	if d := req.Dimensions; d != nil && *d < 1 {
		return nil, fmt.Sprintf("Invalid 'dimensions': integer below minimum value. Expected a value >= 1, but got %d instead.", *d), "dimensions"
	}
	if d := req.Dimensions; d != nil && *d > MaxEmbedDims {
		return nil, fmt.Sprintf("Invalid 'dimensions': integer above maximum value. Expected a value <= %d, but got %d instead.", MaxEmbedDims, *d), "dimensions"
	}
	inputs, ok := decodeInputs(req.Input)
	if !ok {
		return nil, "'$.input' is invalid. Please check the API reference: https://platform.openai.com/docs/api-reference.", "input"
	}
	if len(inputs) > MaxEmbedInputs {
		return inputs, fmt.Sprintf("'$.input' is invalid: %d inputs, at most %d per request.", len(inputs), MaxEmbedInputs), "input"
	}
	for i, in := range inputs {
		if in.tokens > MaxEmbedTokens {
			return inputs, fmt.Sprintf("This model's maximum context length is %d tokens, however you requested %d tokens (%d in your prompt; 0 for the completion). Please reduce your prompt; or completion length. (input[%d])", MaxEmbedTokens, in.tokens, in.tokens, i), "input"
		}
	}
	return inputs, "", ""
}

// decodeInputs reads input as OpenAI accepts it: a string, an array of
// strings, an array of tokens or an array of token arrays, none empty.
func decodeInputs(raw json.RawMessage) ([]embedInput, bool) {
	var one string
	if json.Unmarshal(raw, &one) == nil {
		return textInputs(one)
	}
	var many []string
	if json.Unmarshal(raw, &many) == nil {
		return textInputs(many...)
	}
	var tokens []int
	if json.Unmarshal(raw, &tokens) == nil {
		return tokenInputs(tokens)
	}
	var arrays [][]int
	if json.Unmarshal(raw, &arrays) == nil {
		return tokenInputs(arrays...)
	}
	return nil, false
}

func textInputs(texts ...string) ([]embedInput, bool) {
	out := make([]embedInput, len(texts))
	for i, t := range texts {
		if t == "" {
			return nil, false
		}
		out[i] = embedInput{text: t, tokens: countTokens(t)}
	}
	return out, len(out) > 0
}

// tokenInputs reads each token array as the text "t<id> t<id> ...", so
// equal tokens make equal terms.
func tokenInputs(arrays ...[]int) ([]embedInput, bool) {
	out := make([]embedInput, len(arrays))
	for i, a := range arrays {
		if len(a) == 0 {
			return nil, false
		}
		b := make([]byte, 0, 8*len(a))
		for _, tok := range a {
			b = append(b, " t"...)
			b = strconv.AppendInt(b, int64(tok), 10)
		}
		out[i] = embedInput{text: string(b), tokens: len(a)}
	}
	return out, len(out) > 0
}

// dimsSuffix is the model-name convention for a model of fixed vector
// length: "fake-embed-dim64" always embeds into 64 dimensions.
var dimsSuffix = regexp.MustCompile(`(?:^|[-_.:])dim(\d{1,4})$`)

// dimensionsFor returns the vector length: the model name's "-dim<N>"
// suffix, which like many local models ignores the request's dimensions;
// else the request's dimensions; else DefaultDimensions.
func dimensionsFor(model string, requested *int) int {
	if m := dimsSuffix.FindStringSubmatch(model); m != nil {
		if n, _ := strconv.Atoi(m[1]); n >= 1 && n <= MaxEmbedDims {
			return n
		}
	}
	if requested != nil {
		return *requested
	}
	return DefaultDimensions
}

func writeEmbeddings(w http.ResponseWriter, req wireEmbedRequest, inputs []embedInput) {
	dims := dimensionsFor(req.Model, req.Dimensions)
	b64 := req.EncodingFormat != nil && *req.EncodingFormat == "base64"
	resp := wireEmbedResponse{Object: "list", Model: req.Model, Data: make([]wireEmbedding, len(inputs))}
	for i, in := range inputs {
		var vec any = Embed(in.text, dims)
		if b64 {
			vec = float32Base64(vec.([]float32))
		}
		resp.Data[i] = wireEmbedding{Object: "embedding", Index: i, Embedding: vec}
		resp.Usage.PromptTokens += in.tokens
	}
	resp.Usage.TotalTokens = resp.Usage.PromptTokens
	w.Header().Set("Content-Type", "application/json")
	_ = json.NewEncoder(w).Encode(resp)
}

// float32Base64 encodes v as OpenAI does: little-endian float32s, base64.
func float32Base64(v []float32) string {
	b := make([]byte, 4*len(v))
	for i, x := range v {
		binary.LittleEndian.PutUint32(b[4*i:], math.Float32bits(x))
	}
	return base64.StdEncoding.EncodeToString(b)
}

// authorised answers 401 and reports false when the server wants an API
// key the request does not carry.
func (s *Server) authorised(w http.ResponseWriter, r *http.Request) bool {
	if s.cfg.apiKey != "" && r.Header.Get("Authorization") != "Bearer "+s.cfg.apiKey {
		writeError(w, Fail(http.StatusUnauthorized, "Incorrect API key provided."), "")
		return false
	}
	return true
}
