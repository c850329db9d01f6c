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

// Kinds of model: what a model is used for. A chat model answers
// conversations; an embedding model turns texts into vectors for knowledge
// bases; a rerank model orders texts by relevance to a query.
const (
	KindChat      = "chat"
	KindEmbedding = "embedding"
	KindRerank    = "rerank"
)

// Kinds lists the accepted model kinds.
var Kinds = []string{KindChat, KindEmbedding, KindRerank}

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
	// Kind is KindChat, KindEmbedding or KindRerank; "" reads as KindChat
	// (models configured before kinds existed).
	Kind string
	// Dimensions is the length of an embedding model's vectors, sent to the
	// provider when set; 0 means whatever the model returns.
	Dimensions int
	// Default marks the platform's default embedding model.
	Default   bool
	Source    string
	CreatedAt time.Time
	UpdatedAt time.Time
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
	if err := m.validateKind(at); err != nil {
		return err
	}
	if m.Name == "" {
		m.Name = m.ID
	}
	return nil
}

// KindOrChat returns the model's kind, KindChat when it is empty.
func (m *Model) KindOrChat() string {
	if m.Kind == "" {
		return KindChat
	}
	return m.Kind
}

// IsChat reports whether the model can answer conversations.
func (m *Model) IsChat() bool { return m.KindOrChat() == KindChat }

// validateKind checks kind, dimensions and default, which depend on the
// kind; an empty kind is stored as KindChat.
func (m *Model) validateKind(at string) error {
	m.Kind = m.KindOrChat()
	if !slices.Contains(Kinds, m.Kind) {
		return errs.Invalid(at+"kind", "must be one of %v; got %q", Kinds, m.Kind)
	}
	if m.Dimensions < 0 {
		return errs.Invalid(at+"dimensions", "must not be negative (0: whatever the model returns)")
	}
	if m.Dimensions > 0 && m.Kind != KindEmbedding {
		return errs.Invalid(at+"dimensions", "applies to embedding models only; this model is of kind %q", m.Kind)
	}
	if m.Default && m.Kind != KindEmbedding {
		return errs.Invalid(at+"default", "marks the default embedding model; this model is of kind %q", m.Kind)
	}
	if m.Provider == ProviderGemini && m.Kind != KindChat {
		return errs.Invalid(at+"kind", "gemini models can only be of kind %q; use an OpenAI-compatible endpoint (provider openai) for %s models", KindChat, m.Kind)
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
