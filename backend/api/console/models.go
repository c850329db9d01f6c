package console

import (
	"context"
	"slices"

	"github.com/cloudwego/hertz/pkg/app"

	"github.com/pergola-ai/pergola/application/modelreg"
	"github.com/pergola-ai/pergola/backend/api/httpx"
	"github.com/pergola-ai/pergola/domain/errs"
	"github.com/pergola-ai/pergola/domain/llm"
)

// modelChoiceDTO is what a builder needs to pick a model: no endpoint, no
// key source (those are the administrators' business).
type modelChoiceDTO struct {
	ID            string           `json:"id"`
	Name          string           `json:"name"`
	Provider      string           `json:"provider"`
	Model         string           `json:"model"`
	Capabilities  llm.Capabilities `json:"capabilities"`
	ContextWindow int              `json:"context_window"`
	Kind          string           `json:"kind"`
	Dimensions    int              `json:"dimensions"`
	Default       bool             `json:"default"`
}

// Models lets builders see the models they can pick for bots.
type Models struct {
	Registry *modelreg.Registry
}

// List answers GET /api/models with the enabled models of ?kind= (chat
// by default, so that a picker of a bot's model never offers an embedding
// or rerank model).
func (h Models) List(ctx context.Context, c *app.RequestContext) error {
	kind := c.DefaultQuery("kind", llm.KindChat)
	if !slices.Contains(llm.Kinds, kind) {
		return errs.Invalid("kind", "must be one of %v; got %q", llm.Kinds, kind)
	}
	ms, err := h.Registry.ByKind(ctx, kind)
	if err != nil {
		return err
	}
	out := []modelChoiceDTO{}
	for _, m := range ms {
		if m.Enabled {
			out = append(out, modelChoiceDTO{ID: m.ID, Name: m.Name, Provider: m.Provider, Model: m.Model,
				Capabilities: m.Capabilities, ContextWindow: m.ContextWindow,
				Kind: m.KindOrChat(), Dimensions: m.Dimensions, Default: m.Default})
		}
	}
	httpx.OK(c, httpx.List[modelChoiceDTO]{Items: out, Total: int64(len(out))})
	return nil
}
