package provider

import (
	"github.com/cloudwego/eino-ext/components/model/openai"
	"github.com/cloudwego/eino/components/model"

	"github.com/pergola-ai/pergola/domain/llm"
)

// FormatOption turns a request's response format into an option of the
// model's calls, sent as OpenAI's response_format. It reports false for a
// provider Pergola cannot ask for a format (Gemini).
func (f Factory) FormatOption(m llm.Model, rf llm.ResponseFormat) (model.Option, bool) {
	if m.Provider != llm.ProviderOpenAI {
		return model.Option{}, false
	}
	wire := map[string]any{"type": rf.Type}
	if rf.Type == llm.FormatJSONSchema {
		js := map[string]any{"name": rf.Name, "schema": rf.Schema, "strict": rf.Strict}
		if rf.Description != "" {
			js["description"] = rf.Description
		}
		wire["json_schema"] = js
	}
	// Extra fields replace the body's field of the same name.
	return openai.WithExtraFields(map[string]any{"response_format": wire}), true
}
