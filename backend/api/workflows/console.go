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
		out[i] = NewWorkflowDTO(&items[i])
	}
	httpx.OK(c, httpx.List[WorkflowDTO]{Items: out, Total: total})
	return nil
}

type createRequest struct {
	WorkspaceID httpx.ID        `json:"workspace_id"`
	Name        string          `json:"name"`
	Description string          `json:"description"`
	Definition  json.RawMessage `json:"definition"`
	KeepInvalid bool            `json:"keep_invalid"`
}

// Create answers POST /api/workflows with 201 and the new workflow.
// With keep_invalid a definition that does not validate is stored as the
// draft and the answer lists its problems.
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
		Name: req.Name, Description: req.Description, Definition: def, KeepInvalid: req.KeepInvalid})
	if err != nil {
		return err
	}
	dto, err := h.withProblems(ctx, c, w, req.KeepInvalid)
	if err != nil {
		return err
	}
	c.JSON(http.StatusCreated, httpx.Envelope{Data: dto})
	return nil
}

// withProblems renders a stored workflow, with the problems of its draft
// when it may have been kept invalid.
func (h Console) withProblems(ctx context.Context, c *app.RequestContext, w *workflow.Workflow, kept bool) (WorkflowDTO, error) {
	dto := NewWorkflowDTO(w)
	if !kept {
		return dto, nil
	}
	problems, err := h.Svc.DraftProblems(ctx, httpx.Caller(c), w.ID)
	dto.Problems = NewProblems(problems)
	return dto, err
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
	httpx.OK(c, NewWorkflowDTO(w))
	return nil
}

type updateRequest struct {
	Name        *string         `json:"name"`
	Description *string         `json:"description"`
	Definition  json.RawMessage `json:"definition"`
	KeepInvalid bool            `json:"keep_invalid"`
}

// Update answers PATCH /api/workflows/:id: the fields present change the
// draft (keep_invalid as in Create).
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
	w, err := h.Svc.Update(ctx, httpx.Caller(c), id, workflowapp.UpdateInput{Name: req.Name, Description: req.Description,
		Definition: def, KeepInvalid: req.KeepInvalid})
	if err != nil {
		return err
	}
	dto, err := h.withProblems(ctx, c, w, req.KeepInvalid && def != nil)
	if err != nil {
		return err
	}
	httpx.OK(c, dto)
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
	httpx.OK(c, map[string]any{"valid": len(problems) == 0, "problems": NewProblems(problems)})
	return nil
}
