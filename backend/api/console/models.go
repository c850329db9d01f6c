package console

import (
	"context"

	"github.com/cloudwego/hertz/pkg/app"

	"github.com/pergola-ai/pergola/application/modelreg"
	"github.com/pergola-ai/pergola/backend/api/httpx"
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
}

// Models lets builders see the models they can pick for bots.
type Models struct {
	Registry *modelreg.Registry
}

// List answers GET /api/models with the enabled models.
func (h Models) List(ctx context.Context, c *app.RequestContext) error {
	ms, err := h.Registry.List(ctx)
	if err != nil {
		return err
	}
	out := []modelChoiceDTO{}
	for _, m := range ms {
		if m.Enabled {
			out = append(out, modelChoiceDTO{ID: m.ID, Name: m.Name, Provider: m.Provider, Model: m.Model,
				Capabilities: m.Capabilities, ContextWindow: m.ContextWindow})
		}
	}
	httpx.OK(c, httpx.List[modelChoiceDTO]{Items: out, Total: int64(len(out))})
	return nil
}
