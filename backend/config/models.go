package config

import (
	"bytes"
	"fmt"
	"os"

	"gopkg.in/yaml.v3"

	"github.com/pergola-ai/pergola/domain/errs"
	"github.com/pergola-ai/pergola/domain/llm"
)

type modelsFile struct {
	Models []modelEntry `yaml:"models"`
}

type modelEntry struct {
	ID            string           `yaml:"id"`
	Name          string           `yaml:"name"`
	Provider      string           `yaml:"provider"`
	BaseURL       string           `yaml:"base_url"`
	APIKey        string           `yaml:"api_key"`
	APIKeyEnv     string           `yaml:"api_key_env"`
	Model         string           `yaml:"model"`
	Capabilities  llm.Capabilities `yaml:"capabilities"`
	ContextWindow int              `yaml:"context_window"`
	Disabled      bool             `yaml:"disabled"`
	Kind          string           `yaml:"kind"`       // chat (default), embedding, rerank
	Dimensions    int              `yaml:"dimensions"` // embedding vector length; 0: the model's
	Default       bool             `yaml:"default"`    // the default embedding model
}

// LoadModels reads the models file (PERGOLA_MODELS_FILE), resolves api_key_env
// through env and validates every entry. Errors name the file and the entry.
func LoadModels(path string, env Lookup) ([]llm.Model, error) {
	if path == "" {
		return nil, nil
	}
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("PERGOLA_MODELS_FILE: %w", err)
	}
	var f modelsFile
	dec := yaml.NewDecoder(bytes.NewReader(b))
	dec.KnownFields(true)
	if err := dec.Decode(&f); err != nil {
		return nil, fmt.Errorf("PERGOLA_MODELS_FILE %s: %w", path, err)
	}
	seen := map[string]bool{}
	defaultAt := -1
	out := make([]llm.Model, 0, len(f.Models))
	for i, e := range f.Models {
		m, err := e.toModel(fmt.Sprintf("models[%d].", i), env)
		if err != nil {
			return nil, fmt.Errorf("PERGOLA_MODELS_FILE %s: %w", path, err)
		}
		if seen[m.ID] {
			return nil, fmt.Errorf("PERGOLA_MODELS_FILE %s: models[%d].id: %q is defined twice", path, i, m.ID)
		}
		seen[m.ID] = true
		if m.Default && defaultAt >= 0 {
			return nil, fmt.Errorf("PERGOLA_MODELS_FILE %s: models[%d].default: models[%d] (%s) is the default embedding model already; only one may be", path, i, defaultAt, out[defaultAt].ID)
		}
		if m.Default {
			defaultAt = i
		}
		out = append(out, m)
	}
	return out, nil
}

func (e modelEntry) toModel(at string, env Lookup) (llm.Model, error) {
	m := llm.Model{
		ID: e.ID, Name: e.Name, Provider: e.Provider, BaseURL: e.BaseURL, APIKey: e.APIKey,
		APIKeyEnv: e.APIKeyEnv, Model: e.Model, Capabilities: e.Capabilities,
		ContextWindow: e.ContextWindow, Enabled: !e.Disabled, Source: llm.SourceFile,
		Kind: e.Kind, Dimensions: e.Dimensions, Default: e.Default,
	}
	if e.APIKey != "" && e.APIKeyEnv != "" {
		return m, errs.Invalid(at+"api_key", "give api_key or api_key_env, not both")
	}
	if e.APIKeyEnv != "" {
		v, ok := env(e.APIKeyEnv)
		if !ok || v == "" {
			return m, errs.Invalid(at+"api_key_env", "environment variable %s is not set", e.APIKeyEnv)
		}
		m.APIKey = v
	}
	return m, m.Validate(at)
}
