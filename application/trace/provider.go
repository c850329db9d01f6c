package trace

import (
	"context"
	"net/url"
	"strconv"
	"strings"

	semconv "go.opentelemetry.io/otel/semconv/v1.41.0"

	"github.com/pergola-ai/pergola/domain/llm"
)

// Models resolves a model id to its configuration (provider, the
// provider's model name, base URL); *modelreg.Registry implements it.
type Models interface {
	Get(ctx context.Context, id string) (*llm.Model, error)
}

// modelInfo is what the spans of a model call say of the model.
type modelInfo struct {
	id, name, provider, host string
	port                     int
}

// providerMoonshot is a well-known gen_ai.provider.name of the GenAI
// conventions (semantic-conventions-genai, after v1.41.0) that no served
// semconv Go package carries yet.
const providerMoonshot = "moonshot_ai"

// hostProviders names the provider of an OpenAI-compatible endpoint by
// its host, as the conventions ask ("the instrumentation's best
// knowledge"); any other host is "openai", the wire format.
var hostProviders = map[string]string{
	"api.deepseek.com":          semconv.GenAIProviderNameDeepseek.Value.AsString(),
	"api.groq.com":              semconv.GenAIProviderNameGroq.Value.AsString(),
	"api.mistral.ai":            semconv.GenAIProviderNameMistralAI.Value.AsString(),
	"api.x.ai":                  semconv.GenAIProviderNameXAI.Value.AsString(),
	"api.perplexity.ai":         semconv.GenAIProviderNamePerplexity.Value.AsString(),
	"api.moonshot.ai":           providerMoonshot,
	"api.moonshot.cn":           providerMoonshot,
	"api.anthropic.com":         semconv.GenAIProviderNameAnthropic.Value.AsString(),
	"api.cohere.com":            semconv.GenAIProviderNameCohere.Value.AsString(),
	"api.openai.com":            semconv.GenAIProviderNameOpenAI.Value.AsString(),
	"aiplatform.googleapis.com": semconv.GenAIProviderNameGCPVertexAI.Value.AsString(),
}

// defaultHosts are the endpoints a model without a base URL calls.
var defaultHosts = map[string]string{
	llm.ProviderOpenAI: "https://api.openai.com/v1",
	llm.ProviderGemini: "https://generativelanguage.googleapis.com",
}

// lookupModel describes model id; a model it cannot find keeps its id as
// its name and "openai" as its provider.
func lookupModel(ctx context.Context, models Models, id string) modelInfo {
	info := modelInfo{id: id, name: id, provider: semconv.GenAIProviderNameOpenAI.Value.AsString()}
	if models == nil || id == "" {
		return info
	}
	m, err := models.Get(ctx, id)
	if err != nil || m == nil {
		return info
	}
	if m.Model != "" {
		info.name = m.Model
	}
	base := m.BaseURL
	if base == "" {
		base = defaultHosts[m.Provider]
	}
	if u, err := url.Parse(base); err == nil && u.Hostname() != "" {
		info.host, info.port = u.Hostname(), port(u)
	}
	info.provider = providerOf(m.Provider, info.host)
	return info
}

func providerOf(provider, host string) string {
	if provider == llm.ProviderGemini {
		if strings.HasSuffix(host, "aiplatform.googleapis.com") {
			return semconv.GenAIProviderNameGCPVertexAI.Value.AsString()
		}
		return semconv.GenAIProviderNameGCPGemini.Value.AsString()
	}
	if strings.HasSuffix(host, ".openai.azure.com") {
		return semconv.GenAIProviderNameAzureAIOpenAI.Value.AsString()
	}
	for h, p := range hostProviders {
		if host == h || strings.HasSuffix(host, "."+h) {
			return p
		}
	}
	return semconv.GenAIProviderNameOpenAI.Value.AsString()
}

func port(u *url.URL) int {
	if p, err := strconv.Atoi(u.Port()); err == nil {
		return p
	}
	if u.Scheme == "http" {
		return 80
	}
	return 443
}

// set puts the model's attributes on sp: the provider, the model
// requested, the server called.
func (m modelInfo) set(sp *Span) {
	sp.Attributes[AttrProvider] = m.provider
	sp.Attributes[AttrRequestModel] = m.name
	sp.Attributes[AttrModelID] = m.id
	if m.host != "" {
		sp.Attributes[AttrServerAddress] = m.host
		sp.Attributes[AttrServerPort] = m.port
	}
}
