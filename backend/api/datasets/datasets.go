package datasets

import (
	"context"
	"fmt"
	"strconv"

	"github.com/cloudwego/hertz/pkg/app"

	knowledgeapp "github.com/pergola-ai/pergola/application/knowledge"
	"github.com/pergola-ai/pergola/backend/api/httpx"
	"github.com/pergola-ai/pergola/domain/errs"
	"github.com/pergola-ai/pergola/domain/identity"
	"github.com/pergola-ai/pergola/domain/knowledge"
)

// Handlers serves the Coze knowledge routes on the knowledge service.
// Every route needs a token with the knowledge scope and membership of the
// knowledge base's workspace (the service checks both).
type Handlers struct {
	Svc *knowledgeapp.Service
}

// namesPerDataset bounds the documents whose names a dataset of a list
// shows in file_list (its newest).
const namesPerDataset = 100

type datasetRequest struct {
	Name        *string `json:"name"`
	SpaceID     idText  `json:"space_id"`
	FormatType  *int    `json:"format_type"`
	Description *string `json:"description"`
	FileID      idText  `json:"file_id"`
	// EmbeddingModel is Pergola's: the model of kind embedding; absent
	// takes the platform's default.
	EmbeddingModel string `json:"embedding_model"`
}

// Create answers POST /v1/datasets {name, space_id, format_type,
// description?, file_id?} with data {dataset_id}.
func (h Handlers) Create(ctx context.Context, c *app.RequestContext) error {
	var req datasetRequest
	if err := httpx.BindJSON(c, &req); err != nil {
		return err
	}
	ws, err := req.SpaceID.parse("space_id", true)
	if err != nil {
		return err
	}
	icon, err := req.FileID.parse("file_id", false)
	if err != nil {
		return err
	}
	in := knowledgeapp.CreateInput{WorkspaceID: ws, Name: deref(req.Name), Description: deref(req.Description),
		IconFileID: icon, EmbeddingModel: req.EmbeddingModel}
	if req.FormatType != nil {
		in.Format = knowledge.Format(*req.FormatType)
	}
	b, err := h.Svc.Create(ctx, httpx.Caller(c), in)
	if err != nil {
		return renameField(err, iconField)
	}
	httpx.OK(c, map[string]any{"dataset_id": httpx.ID(b.ID)})
	return nil
}

// List answers GET /v1/datasets?space_id&name&format_type&page_num&page_size
// with data {total_count, dataset_list}, newest first.
func (h Handlers) List(ctx context.Context, c *app.RequestContext) error {
	ws, err := httpx.QueryID(c, "space_id", true)
	if err != nil {
		return err
	}
	page, err := httpx.Paging(c, 10, 100)
	if err != nil {
		return err
	}
	f := knowledge.ListFilter{Name: string(c.Query("name"))}
	if v := string(c.Query("format_type")); v != "" {
		n, err := strconv.Atoi(v)
		if err != nil {
			return errs.Invalid("format_type", "must be 0 (text), 1 (table) or 2 (image), got %q", v)
		}
		ft := knowledge.Format(n)
		f.Format = &ft
	}
	p := httpx.Caller(c)
	views, total, err := h.Svc.List(ctx, p, ws, knowledgeapp.ListInput{Filter: f, Page: page})
	if err != nil {
		return err
	}
	list := make([]Dataset, 0, len(views))
	for _, v := range views {
		d, err := h.dataset(ctx, p, v)
		if err != nil {
			return err
		}
		list = append(list, d)
	}
	httpx.OK(c, map[string]any{"total_count": total, "dataset_list": list})
	return nil
}

// dataset renders a knowledge base with the names of its newest documents.
func (h Handlers) dataset(ctx context.Context, p identity.Principal, v knowledgeapp.View) (Dataset, error) {
	if v.Counts.Documents == 0 {
		return newDataset(v, nil), nil
	}
	docs, _, err := h.Svc.ListDocuments(ctx, p, v.ID, identity.Page{Number: 1, Size: namesPerDataset})
	if err != nil {
		return Dataset{}, fmt.Errorf("dataset %d: %w", v.ID, err)
	}
	return newDataset(v, docs), nil
}

// Update answers PUT /v1/datasets/{dataset_id} {name, file_id?,
// description?}: name is required, as in Coze; the other fields change
// when given.
func (h Handlers) Update(ctx context.Context, c *app.RequestContext) error {
	id, err := httpx.PathID(c, "dataset_id")
	if err != nil {
		return err
	}
	var req datasetRequest
	if err := httpx.BindJSON(c, &req); err != nil {
		return err
	}
	if req.Name == nil {
		return errs.Invalid("name", "is required")
	}
	pt := knowledgeapp.Patch{Name: req.Name, Description: req.Description}
	if req.FileID != "" {
		icon, err := req.FileID.parse("file_id", true)
		if err != nil {
			return err
		}
		pt.IconFileID = &icon
	}
	if _, err := h.Svc.Update(ctx, httpx.Caller(c), id, pt); err != nil {
		return renameField(err, iconField)
	}
	httpx.OK(c, nil)
	return nil
}

// Delete answers DELETE /v1/datasets/{dataset_id}: the knowledge base,
// its documents and their chunks go. Only its creator or a workspace
// admin may delete it (403).
func (h Handlers) Delete(ctx context.Context, c *app.RequestContext) error {
	id, err := httpx.PathID(c, "dataset_id")
	if err != nil {
		return err
	}
	if err := h.Svc.Delete(ctx, httpx.Caller(c), id); err != nil {
		return err
	}
	httpx.OK(c, nil)
	return nil
}

// Process answers POST /v1/datasets/{dataset_id}/process {document_ids}
// with data {data: [DocumentProgress]}; ids that are not documents of the
// knowledge base are left out, and no ids gives its newest 100 documents.
func (h Handlers) Process(ctx context.Context, c *app.RequestContext) error {
	id, err := httpx.PathID(c, "dataset_id")
	if err != nil {
		return err
	}
	var req struct {
		DocumentIDs []idText `json:"document_ids"`
	}
	if err := httpx.BindJSON(c, &req); err != nil {
		return err
	}
	ids, err := parseIDs("document_ids", req.DocumentIDs)
	if err != nil {
		return err
	}
	progress, err := h.Svc.Progress(ctx, httpx.Caller(c), id, ids)
	if err != nil {
		return err
	}
	out := make([]DocumentProgress, len(progress))
	for i, p := range progress {
		out[i] = newDocumentProgress(p)
	}
	httpx.OK(c, map[string]any{"data": out})
	return nil
}

func deref(s *string) string {
	if s == nil {
		return ""
	}
	return *s
}

// iconField names the service's icon_file_id as Coze's datasets do.
func iconField(f string) string {
	if f == "icon_file_id" {
		return "file_id"
	}
	return f
}
