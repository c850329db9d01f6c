package admin

import (
	"context"
	"net/http"

	"github.com/cloudwego/hertz/pkg/app"

	"github.com/pergola-ai/pergola/application/modelreg"
	"github.com/pergola-ai/pergola/backend/api/console"
	"github.com/pergola-ai/pergola/backend/api/httpx"
	"github.com/pergola-ai/pergola/domain/errs"
	"github.com/pergola-ai/pergola/domain/llm"
)

// Models manages the model registry.
type Models struct {
	Registry *modelreg.Registry
}

type modelRequest struct {
	ID            string            `json:"id"`
	Name          *string           `json:"name"`
	Provider      string            `json:"provider"`
	BaseURL       *string           `json:"base_url"`
	APIKey        *string           `json:"api_key"`
	Model         *string           `json:"model"`
	Capabilities  *llm.Capabilities `json:"capabilities"`
	ContextWindow *int              `json:"context_window"`
	Enabled       *bool             `json:"enabled"`
	Kind          *string           `json:"kind"`
	Dimensions    *int              `json:"dimensions"`
	Default       *bool             `json:"default"`
}

func deref[T any](p *T, def T) T {
	if p == nil {
		return def
	}
	return *p
}

// List answers GET /api/admin/models, disabled ones included.
func (h Models) List(ctx context.Context, c *app.RequestContext) error {
	ms, err := h.Registry.List(ctx)
	if err != nil {
		return err
	}
	out := make([]console.ModelDTO, len(ms))
	for i, m := range ms {
		out[i] = console.NewModelDTO(m)
	}
	httpx.OK(c, httpx.List[console.ModelDTO]{Items: out, Total: int64(len(out))})
	return nil
}

// Create answers POST /api/admin/models.
func (h Models) Create(ctx context.Context, c *app.RequestContext) error {
	var req modelRequest
	if err := httpx.BindJSON(c, &req); err != nil {
		return err
	}
	m, err := h.Registry.Create(ctx, llm.Model{
		ID: req.ID, Name: deref(req.Name, ""), Provider: req.Provider, BaseURL: deref(req.BaseURL, ""),
		APIKey: deref(req.APIKey, ""), Model: deref(req.Model, ""), Capabilities: deref(req.Capabilities, llm.Capabilities{}),
		ContextWindow: deref(req.ContextWindow, 0), Enabled: deref(req.Enabled, true),
		Kind: deref(req.Kind, llm.KindChat), Dimensions: deref(req.Dimensions, 0), Default: deref(req.Default, false),
	})
	if err != nil {
		return err
	}
	c.JSON(http.StatusCreated, httpx.Envelope{Data: console.NewModelDTO(*m)})
	return nil
}

// Get answers GET /api/admin/models/:id.
func (h Models) Get(ctx context.Context, c *app.RequestContext) error {
	m, err := h.Registry.Get(ctx, c.Param("id"))
	if err != nil {
		return err
	}
	httpx.OK(c, console.NewModelDTO(*m))
	return nil
}

// Update answers PATCH /api/admin/models/:id.
func (h Models) Update(ctx context.Context, c *app.RequestContext) error {
	var req modelRequest
	if err := httpx.BindJSON(c, &req); err != nil {
		return err
	}
	if req.ID != "" {
		return errs.Invalid("id", "cannot change; create a new model instead")
	}
	if req.Provider != "" {
		return errs.Invalid("provider", "cannot change; create a new model instead")
	}
	m, err := h.Registry.Update(ctx, c.Param("id"), modelreg.Patch{
		Name: req.Name, BaseURL: req.BaseURL, APIKey: req.APIKey, Model: req.Model,
		Capabilities: req.Capabilities, ContextWindow: req.ContextWindow, Enabled: req.Enabled,
		Kind: req.Kind, Dimensions: req.Dimensions, Default: req.Default,
	})
	if err != nil {
		return err
	}
	httpx.OK(c, console.NewModelDTO(*m))
	return nil
}

// Delete answers DELETE /api/admin/models/:id.
func (h Models) Delete(ctx context.Context, c *app.RequestContext) error {
	if err := h.Registry.Delete(ctx, c.Param("id")); err != nil {
		return err
	}
	httpx.OK(c, nil)
	return nil
}

// Test answers POST /api/admin/models/:id/test: one short request to the
// model (a prompt for a chat model, one word to embed for an embedding
// model, two texts to rank for a rerank model), with its reply, latency,
// tokens and an embedding's dimensions, or the error it gave.
func (h Models) Test(ctx context.Context, c *app.RequestContext) error {
	res, err := h.Registry.Test(ctx, c.Param("id"))
	if err != nil {
		return err
	}
	httpx.OK(c, map[string]any{
		"ok": res.OK, "reply": res.Reply, "error": res.Error, "latency_ms": res.Latency.Milliseconds(),
		"input_tokens": res.InputTokens, "output_tokens": res.OutputTokens, "dimensions": res.Dimensions,
	})
	return nil
}
