// Package apps holds the handlers of apps (Coze's projects) and their
// variables on the console API.
package apps

import (
	"bytes"
	"context"
	"encoding/json"
	"net/http"
	"strconv"

	"github.com/cloudwego/hertz/pkg/app"

	appapp "github.com/pergola-ai/pergola/application/app"
	"github.com/pergola-ai/pergola/backend/api/httpx"
	domain "github.com/pergola-ai/pergola/domain/app"
	"github.com/pergola-ai/pergola/domain/errs"
)

// Console serves /api/apps.
type Console struct{ Svc *appapp.Service }

// AppDTO is an app as the console shows it.
type AppDTO struct {
	ID          httpx.ID      `json:"id"`
	WorkspaceID httpx.ID      `json:"workspace_id"`
	Name        string        `json:"name"`
	Description string        `json:"description"`
	Variables   []VariableDTO `json:"variables"`
	// Conversations are the conversation templates, Default first.
	Conversations []string `json:"conversations"`
	CreatedAt     int64    `json:"created_at"`
	UpdatedAt     int64    `json:"updated_at"`
}

// VariableDTO is an app variable.
type VariableDTO struct {
	Name        string          `json:"name"`
	Type        string          `json:"type"`
	Default     json.RawMessage `json:"default,omitempty"`
	Description string          `json:"description,omitempty"`
}

// appBody is the body of POST and PUT.
type appBody struct {
	WorkspaceID httpx.ID      `json:"workspace_id"`
	Name        string        `json:"name"`
	Description string        `json:"description"`
	Variables   []VariableDTO `json:"variables"`
	// Conversations are the templates besides Default; absent keeps them.
	Conversations []string `json:"conversations"`
}

func newAppDTO(a *domain.App) AppDTO {
	out := AppDTO{ID: httpx.ID(a.ID), WorkspaceID: httpx.ID(a.WorkspaceID), Name: a.Name, Description: a.Description,
		Variables: make([]VariableDTO, len(a.Variables)), Conversations: a.Templates(), CreatedAt: a.CreatedAt.Unix(),
		UpdatedAt: a.UpdatedAt.Unix()}
	for i, v := range a.Variables {
		out.Variables[i] = VariableDTO{Name: v.Name, Type: v.Type, Description: v.Description}
		if v.Default != nil {
			out.Variables[i].Default, _ = json.Marshal(v.Default)
		}
	}
	return out
}

// input converts the body's variables, defaults decoded as values.
func (b *appBody) input() (appapp.Input, error) {
	in := appapp.Input{Name: b.Name, Description: b.Description, Variables: make([]domain.Variable, len(b.Variables)),
		Conversations: withoutDefault(b.Conversations)}
	for i, v := range b.Variables {
		def, err := decodeValue(v.Default)
		if err != nil {
			return in, errs.Invalid("variables["+strconv.Itoa(i)+"].default", "is not a JSON value: %v", err)
		}
		in.Variables[i] = domain.Variable{Name: v.Name, Type: v.Type, Default: def, Description: v.Description}
	}
	return in, nil
}

// withoutDefault drops Default from templates a client sent back as the
// app answered them; nil stays nil (keep them).
func withoutDefault(names []string) []string {
	if names == nil {
		return nil
	}
	out := []string{}
	for _, n := range names {
		if n != domain.DefaultConversation {
			out = append(out, n)
		}
	}
	return out
}

// decodeValue reads JSON, whole numbers as int64 and others as float64.
func decodeValue(raw json.RawMessage) (any, error) {
	if len(bytes.TrimSpace(raw)) == 0 || string(bytes.TrimSpace(raw)) == "null" {
		return nil, nil
	}
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		return nil, err
	}
	return domain.Numbers(v), nil
}

// List answers GET /api/apps?workspace_id.
func (h Console) List(ctx context.Context, c *app.RequestContext) error {
	ws, err := httpx.QueryID(c, "workspace_id", true)
	if err != nil {
		return err
	}
	page, err := httpx.Paging(c, 20, 100)
	if err != nil {
		return err
	}
	list, total, err := h.Svc.List(ctx, httpx.Caller(c), ws, page)
	if err != nil {
		return err
	}
	out := make([]AppDTO, len(list))
	for i := range list {
		out[i] = newAppDTO(&list[i])
	}
	httpx.OK(c, httpx.List[AppDTO]{Items: out, Total: total})
	return nil
}

// Create answers POST /api/apps with 201 and the new app.
func (h Console) Create(ctx context.Context, c *app.RequestContext) error {
	var body appBody
	if err := httpx.BindJSON(c, &body); err != nil {
		return err
	}
	in, err := body.input()
	if err != nil {
		return err
	}
	a, err := h.Svc.Create(ctx, httpx.Caller(c), int64(body.WorkspaceID), in)
	if err != nil {
		return err
	}
	c.JSON(http.StatusCreated, httpx.Envelope{Data: newAppDTO(a)})
	return nil
}

// Get answers GET /api/apps/:id.
func (h Console) Get(ctx context.Context, c *app.RequestContext) error {
	id, err := httpx.PathID(c, "id")
	if err != nil {
		return err
	}
	a, err := h.Svc.Get(ctx, httpx.Caller(c), id)
	if err != nil {
		return err
	}
	httpx.OK(c, newAppDTO(a))
	return nil
}

// Update answers PUT /api/apps/:id: name, description and variables are
// replaced with the body's.
func (h Console) Update(ctx context.Context, c *app.RequestContext) error {
	id, err := httpx.PathID(c, "id")
	if err != nil {
		return err
	}
	var body appBody
	if err := httpx.BindJSON(c, &body); err != nil {
		return err
	}
	in, err := body.input()
	if err != nil {
		return err
	}
	a, err := h.Svc.Update(ctx, httpx.Caller(c), id, in)
	if err != nil {
		return err
	}
	httpx.OK(c, newAppDTO(a))
	return nil
}

// Delete answers DELETE /api/apps/:id.
func (h Console) Delete(ctx context.Context, c *app.RequestContext) error {
	id, err := httpx.PathID(c, "id")
	if err != nil {
		return err
	}
	if err := h.Svc.Delete(ctx, httpx.Caller(c), id); err != nil {
		return err
	}
	httpx.OK(c, nil)
	return nil
}
