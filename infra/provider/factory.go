// Package provider turns a configured model (llm.Model) into an eino chat
// model that talks to the provider: the OpenAI chat completions API (and
// every endpoint compatible with it) or the Gemini API.
package provider

import (
	"context"
	"fmt"
	"net/http"
	"net/url"
	"regexp"
	"strings"
	"time"

	"github.com/cloudwego/eino-ext/components/model/gemini"
	"github.com/cloudwego/eino-ext/components/model/openai"
	"github.com/cloudwego/eino/components/model"
	"google.golang.org/genai"

	"github.com/pergola-ai/pergola/domain/errs"
	"github.com/pergola-ai/pergola/domain/llm"
)

// Default endpoints, used when a model has no BaseURL.
const (
	DefaultOpenAIBaseURL = "https://api.openai.com/v1"
	DefaultGeminiBaseURL = "https://generativelanguage.googleapis.com"
)

// Factory builds chat models. The zero value is ready to use. Building is
// cheap (a few microseconds, no network), so callers need not cache the
// result.
type Factory struct {
	// HTTPClient sends every provider request; a process shares one built
	// by NewHTTPClient, whose idle pool is bounded. Nil means a client
	// without a timeout over http.DefaultTransport: calls are bounded by
	// their context, which suits long streams better than a client timeout
	// does.
	HTTPClient *http.Client
	// ProbeTimeout bounds Probe; zero means DefaultProbeTimeout.
	ProbeTimeout time.Duration
	// EmbedBatch is the most texts Embed sends in one request; zero means
	// DefaultEmbedBatch.
	EmbedBatch int
	// RetryAttempts is how often Embed and Rerank try one request when the
	// provider answers 429 or 5xx; zero means DefaultRetryAttempts.
	RetryAttempts int
	// RetryMaxWait bounds each pause between tries; zero means
	// DefaultRetryMaxWait.
	RetryMaxWait time.Duration
	// Embedders, when set, keeps one embedding client per model for Embed
	// instead of building one per call (NewEmbedders); nil builds one per
	// call.
	Embedders *Embedders
}

// ChatModel returns a chat model for m that can bind tools. It returns an
// error matching errs.ErrInvalid for a model of another kind than chat, an
// unknown provider, a malformed base URL, or a Gemini model without an API
// key.
func (f Factory) ChatModel(ctx context.Context, m llm.Model) (model.ToolCallingChatModel, error) {
	if !m.IsChat() {
		return nil, errs.Invalid("model_id", "model %q is of kind %q, not a chat model", m.ID, m.KindOrChat())
	}
	switch m.Provider {
	case llm.ProviderOpenAI:
		return f.openAI(ctx, m)
	case llm.ProviderGemini:
		return f.gemini(ctx, m)
	default:
		return nil, errs.Invalid("provider", "must be one of %v; got %q", llm.Providers, m.Provider)
	}
}

func (f Factory) openAI(ctx context.Context, m llm.Model) (model.ToolCallingChatModel, error) {
	baseURL := m.BaseURL
	if baseURL == "" {
		baseURL = DefaultOpenAIBaseURL
	}
	cm, err := openai.NewChatModel(ctx, &openai.ChatModelConfig{
		APIKey:     m.APIKey,
		Model:      m.Model,
		BaseURL:    baseURL,
		HTTPClient: openAIClient(f.HTTPClient, m.APIKey),
	})
	if err != nil {
		return nil, fmt.Errorf("openai model %s: %w", m.ID, err)
	}
	return filledModel{inner: cm}, nil
}

func (f Factory) gemini(ctx context.Context, m llm.Model) (model.ToolCallingChatModel, error) {
	// genai falls back to GEMINI_API_KEY and GOOGLE_API_KEY when the key is
	// empty; configuration must come from the model, not the environment.
	if m.APIKey == "" {
		return nil, errs.Invalid("api_key", "is required for a gemini model")
	}
	opts, err := geminiHTTPOptions(m.BaseURL)
	if err != nil {
		return nil, err
	}
	client, err := genai.NewClient(ctx, &genai.ClientConfig{
		APIKey:      m.APIKey,
		Backend:     genai.BackendGeminiAPI, // not GOOGLE_GENAI_USE_VERTEXAI
		HTTPClient:  geminiClient(f.HTTPClient),
		HTTPOptions: opts,
	})
	if err != nil {
		return nil, fmt.Errorf("gemini model %s: %w", m.ID, err)
	}
	cm, err := gemini.NewChatModel(ctx, &gemini.Config{Client: client, Model: m.Model})
	if err != nil {
		return nil, fmt.Errorf("gemini model %s: %w", m.ID, err)
	}
	return cm, nil
}

var apiVersion = regexp.MustCompile(`^v\d+((alpha|beta)\d*)?$`)

// geminiHTTPOptions turns a base URL into genai's base URL and API version.
// genai appends the version itself, so a trailing version segment
// (".../v1beta") is moved into APIVersion rather than doubled.
func geminiHTTPOptions(baseURL string) (genai.HTTPOptions, error) {
	if baseURL == "" {
		// Explicit, so that GOOGLE_GEMINI_BASE_URL does not apply.
		return genai.HTTPOptions{BaseURL: DefaultGeminiBaseURL}, nil
	}
	u, err := url.Parse(baseURL)
	if err != nil || u.Host == "" {
		return genai.HTTPOptions{}, errs.Invalid("base_url", "must be an http(s) URL; got %q", baseURL)
	}
	var opts genai.HTTPOptions
	path := strings.TrimRight(u.Path, "/")
	if i := strings.LastIndex(path, "/"); i >= 0 && apiVersion.MatchString(path[i+1:]) {
		opts.APIVersion, path = path[i+1:], path[:i]
	}
	u.Path, u.RawPath = path, ""
	opts.BaseURL = u.String()
	return opts, nil
}
