package workflows

import (
	"context"
	"encoding/json"
	"net/http"

	"github.com/cloudwego/hertz/pkg/app"

	workflowapp "github.com/pergola-ai/pergola/application/workflow"
	"github.com/pergola-ai/pergola/backend/api/httpx"
	"github.com/pergola-ai/pergola/domain/errs"
	"github.com/pergola-ai/pergola/domain/workflow"
)

// Console serves the builders' workflow routes under /api.
type Console struct {
	Svc *workflowapp.Service
}

// listFilter reads the status filter of a list.
func listFilter(c *app.RequestContext) (workflow.ListFilter, error) {
	switch s := string(c.Query("status")); s {
	case "", "all":
		return workflow.ListFilter{}, nil
	case "published":
		return workflow.ListFilter{PublishedOnly: true}, nil
	default:
		return workflow.ListFilter{}, errs.Invalid("status", "must be all or published; got %q", s)
	}
}

// List answers GET /api/workflows?workspace_id&status&page_num&page_size,
// newest first, without definitions.
func (h Console) List(ctx context.Context, c *app.RequestContext) error {
	ws, err := httpx.QueryID(c, "workspace_id", true)
	if err != nil {
		return err
	}
	f, err := listFilter(c)
	if err != nil {
		return err
	}
	page, err := httpx.Paging(c, 20, 100)
	if err != nil {
		return err
	}
	items, total, err := h.Svc.List(ctx, httpx.Caller(c), ws, f, page)
	if err != nil {
		return err
	}
	out := make([]WorkflowDTO, len(items))
	for i := range items {
		out[i] = newWorkflowDTO(&items[i])
	}
	httpx.OK(c, httpx.List[WorkflowDTO]{Items: out, Total: total})
	return nil
}

type createRequest struct {
	WorkspaceID httpx.ID        `json:"workspace_id"`
	Name        string          `json:"name"`
	Description string          `json:"description"`
	Definition  json.RawMessage `json:"definition"`
}

// Create answers POST /api/workflows with 201 and the new workflow.
func (h Console) Create(ctx context.Context, c *app.RequestContext) error {
	var req createRequest
	if err := httpx.BindJSON(c, &req); err != nil {
		return err
	}
	def, err := definitionBytes(req.Definition)
	if err != nil {
		return err
	}
	w, err := h.Svc.Create(ctx, httpx.Caller(c), workflowapp.CreateInput{WorkspaceID: int64(req.WorkspaceID),
		Name: req.Name, Description: req.Description, Definition: def})
	if err != nil {
		return err
	}
	c.JSON(http.StatusCreated, httpx.Envelope{Data: newWorkflowDTO(w)})
	return nil
}

// Get answers GET /api/workflows/:id with the workflow and its draft.
func (h Console) Get(ctx context.Context, c *app.RequestContext) error {
	id, err := httpx.PathID(c, "id")
	if err != nil {
		return err
	}
	w, err := h.Svc.Get(ctx, httpx.Caller(c), id)
	if err != nil {
		return err
	}
	httpx.OK(c, newWorkflowDTO(w))
	return nil
}

type updateRequest struct {
	Name        *string         `json:"name"`
	Description *string         `json:"description"`
	Definition  json.RawMessage `json:"definition"`
}

// Update answers PATCH /api/workflows/:id: the fields present change the
// draft.
func (h Console) Update(ctx context.Context, c *app.RequestContext) error {
	id, err := httpx.PathID(c, "id")
	if err != nil {
		return err
	}
	var req updateRequest
	if err := httpx.BindJSON(c, &req); err != nil {
		return err
	}
	def, err := definitionBytes(req.Definition)
	if err != nil {
		return err
	}
	w, err := h.Svc.Update(ctx, httpx.Caller(c), id, workflowapp.UpdateInput{Name: req.Name, Description: req.Description, Definition: def})
	if err != nil {
		return err
	}
	httpx.OK(c, newWorkflowDTO(w))
	return nil
}

// Delete answers DELETE /api/workflows/:id.
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

// Validate answers POST /api/workflows/validate {definition,
// workspace_id?} with {valid, problems}: every problem, each naming the
// node and field.
func (h Console) Validate(ctx context.Context, c *app.RequestContext) error {
	var req struct {
		WorkspaceID httpx.ID        `json:"workspace_id"`
		Definition  json.RawMessage `json:"definition"`
	}
	if err := httpx.BindJSON(c, &req); err != nil {
		return err
	}
	def, err := definitionBytes(req.Definition)
	if err != nil {
		return err
	}
	problems, err := h.Svc.Validate(ctx, httpx.Caller(c), int64(req.WorkspaceID), def)
	if err != nil {
		return err
	}
	httpx.OK(c, map[string]any{"valid": len(problems) == 0, "problems": newProblems(problems)})
	return nil
}
