// Package llm holds the configuration of the language models bots and
// workflows run on.
package llm

import (
	"context"
	"net/url"
	"regexp"
	"slices"
	"time"

	"github.com/pergola-ai/pergola/domain/errs"
)

// Providers Pergola can talk to. OpenAI covers every OpenAI-compatible
// endpoint (DeepSeek, Moonshot, Qwen compatible mode, Ollama, vLLM).
const (
	ProviderOpenAI = "openai"
	ProviderGemini = "gemini"
)

// Providers lists the provider names accepted in a model configuration.
var Providers = []string{ProviderOpenAI, ProviderGemini}

// Where a model's configuration comes from.
const (
	SourceFile  = "file"  // PERGOLA_MODELS_FILE; read-only through the API
	SourceAdmin = "admin" // created through the admin API; stored
)

// Capabilities says what a model can do.
type Capabilities struct {
	Tools  bool `json:"tools" yaml:"tools"`
	Vision bool `json:"vision" yaml:"vision"`
	JSON   bool `json:"json" yaml:"json"`
}

// Model is one configured LLM.
type Model struct {
	ID            string
	Name          string
	Provider      string
	BaseURL       string
	APIKey        string // plaintext in memory; encrypted at rest; never returned by the API
	APIKeyEnv     string // the environment variable the key came from, if any
	Model         string // the provider's model name
	Capabilities  Capabilities
	ContextWindow int
	Enabled       bool
	Source        string
	CreatedAt     time.Time
	UpdatedAt     time.Time
}

var idPattern = regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9._:-]{0,63}$`)

// Validate checks a model configuration; field names are prefixed by at,
// e.g. "models[2]." for the models file.
func (m *Model) Validate(at string) error {
	if !idPattern.MatchString(m.ID) {
		return errs.Invalid(at+"id", "must be 1-64 letters, digits, '.', '_', ':' or '-'; got %q", m.ID)
	}
	if !slices.Contains(Providers, m.Provider) {
		return errs.Invalid(at+"provider", "must be one of %v; got %q", Providers, m.Provider)
	}
	if m.Model == "" {
		return errs.Invalid(at+"model", "is required (the provider's model name)")
	}
	if m.BaseURL != "" {
		u, err := url.Parse(m.BaseURL)
		if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
			return errs.Invalid(at+"base_url", "must be an http(s) URL; got %q", m.BaseURL)
		}
	}
	if m.ContextWindow < 0 {
		return errs.Invalid(at+"context_window", "must not be negative")
	}
	if m.Name == "" {
		m.Name = m.ID
	}
	return nil
}

// ModelStore keeps the models created through the admin API. Get returns
// errs.ErrNotFound for an unknown id; Create returns errs.ErrConflict when the
// id is taken. Implementations encrypt APIKey at rest.
type ModelStore interface {
	CreateModel(ctx context.Context, m *Model) error
	GetModel(ctx context.Context, id string) (*Model, error)
	ListModels(ctx context.Context) ([]Model, error)
	UpdateModel(ctx context.Context, id string, fn func(*Model) error) (*Model, error)
	DeleteModel(ctx context.Context, id string) error
}
