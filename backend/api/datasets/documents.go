package datasets

import (
	"cmp"
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

// CreateDocuments answers POST /open_api/knowledge/document/create
// {dataset_id, document_bases, chunk_strategy?, format_type?} with
// {code, msg, document_infos} (beside code, as Coze answers): the
// documents are stored as processing (image documents: ready) and indexed
// in the background; datasets.process follows them. chunk_strategy cuts
// these documents, and becomes the knowledge base's default when it has
// none yet. An image document's caption is its searchable text.
func (h Handlers) CreateDocuments(ctx context.Context, c *app.RequestContext) error {
	var req createDocumentsRequest
	if err := httpx.BindJSON(c, &req); err != nil {
		return err
	}
	id, err := req.DatasetID.parse("dataset_id", true)
	if err != nil {
		return err
	}
	p := httpx.Caller(c)
	v, err := h.Svc.Get(ctx, p, id)
	if err != nil {
		return err
	}
	if req.FormatType != nil && knowledge.Format(*req.FormatType) != v.Format {
		return errs.Invalid("format_type", "is %d but knowledge base %d holds format %d (0 text, 1 table, 2 image)", *req.FormatType, id, v.Format)
	}
	ins, err := req.inputs()
	if err != nil {
		return err
	}
	docs, err := h.Svc.AddDocuments(ctx, p, id, ins)
	if err != nil {
		return renameField(err, cozeDocumentField)
	}
	if err := h.adopt(ctx, p, v.Counts.Documents, id, req.ChunkStrategy); err != nil {
		return err
	}
	infos := make([]DocumentInfo, len(docs))
	for i, d := range docs {
		if err := h.caption(ctx, p, id, &d, req.DocumentBases[i].Caption); err != nil {
			return err
		}
		infos[i] = newDocumentInfo(d, v.Format)
	}
	httpx.Raw(c, map[string]any{"code": httpx.CodeOK, "msg": "", "document_infos": infos})
	return nil
}

// adopt makes the chunk strategy of the first documents the knowledge
// base's default, as Coze takes it from the first upload.
func (h Handlers) adopt(ctx context.Context, p identity.Principal, before int64, id int64, s *ChunkStrategy) error {
	if before > 0 || s == nil {
		return nil
	}
	if _, err := h.Svc.Update(ctx, p, id, knowledgeapp.Patch{ChunkStrategy: s.strategy()}); err != nil {
		return fmt.Errorf("keep the chunk strategy as the default: %w", err)
	}
	return nil
}

type listDocumentsRequest struct {
	DatasetID idText `json:"dataset_id"`
	Page      int    `json:"page"`
	PageSize  int    `json:"page_size"`
	Size      int    `json:"size"` // Coze Studio's name of page_size
}

// ListDocuments answers POST /open_api/knowledge/document/list
// {dataset_id, page?, page_size? (or size)} with {code, msg, total,
// document_infos}, newest first. GET with the same query parameters is
// what the SDK's deprecated knowledge.documents.list sends.
func (h Handlers) ListDocuments(ctx context.Context, c *app.RequestContext) error {
	req, err := bindList(c)
	if err != nil {
		return err
	}
	id, err := req.DatasetID.parse("dataset_id", true)
	if err != nil {
		return err
	}
	page := identity.Page{Number: max(req.Page, 1), Size: cmp.Or(req.PageSize, req.Size, 10)}
	p := httpx.Caller(c)
	v, err := h.Svc.Get(ctx, p, id)
	if err != nil {
		return err
	}
	docs, total, err := h.Svc.ListDocuments(ctx, p, id, page)
	if err != nil {
		return err
	}
	infos := make([]DocumentInfo, len(docs))
	for i, d := range docs {
		infos[i] = newDocumentInfo(d, v.Format)
	}
	httpx.Raw(c, map[string]any{"code": httpx.CodeOK, "msg": "", "total": total, "document_infos": infos})
	return nil
}

// bindList reads a document list request from the JSON body (POST) or
// the query (GET).
func bindList(c *app.RequestContext) (listDocumentsRequest, error) {
	var req listDocumentsRequest
	if string(c.Method()) != "GET" {
		return req, httpx.BindJSON(c, &req)
	}
	req.DatasetID = idText(c.Query("dataset_id"))
	for name, dst := range map[string]*int{"page": &req.Page, "page_size": &req.PageSize, "size": &req.Size} {
		if v := string(c.Query(name)); v != "" {
			n, err := strconv.Atoi(v)
			if err != nil {
				return req, errs.Invalid(name, "must be an integer, got %q", v)
			}
			*dst = n
		}
	}
	return req, nil
}

// UpdateDocument answers POST /open_api/knowledge/document/update
// {document_id, document_name?, update_rule?} with {code, msg}.
func (h Handlers) UpdateDocument(ctx context.Context, c *app.RequestContext) error {
	var req struct {
		DocumentID   idText      `json:"document_id"`
		DocumentName *string     `json:"document_name"`
		UpdateRule   *updateRule `json:"update_rule"`
	}
	if err := httpx.BindJSON(c, &req); err != nil {
		return err
	}
	id, err := req.DocumentID.parse("document_id", true)
	if err != nil {
		return err
	}
	pt := knowledgeapp.DocumentPatch{Name: req.DocumentName}
	if req.UpdateRule != nil {
		r, err := req.UpdateRule.rule("update_rule")
		if err != nil {
			return err
		}
		pt.UpdateRule = &r
	}
	if _, err := h.Svc.UpdateDocument(ctx, httpx.Caller(c), 0, id, pt); err != nil {
		return renameField(err, func(f string) string {
			if f == "name" {
				return "document_name"
			}
			return f
		})
	}
	httpx.Raw(c, map[string]any{"code": httpx.CodeOK, "msg": ""})
	return nil
}

// DeleteDocuments answers POST /open_api/knowledge/document/delete
// {document_ids} with {code, msg}: all of them go with their chunks, or
// none when one cannot be reached (404 naming it).
func (h Handlers) DeleteDocuments(ctx context.Context, c *app.RequestContext) error {
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
	if err := h.Svc.DeleteDocuments(ctx, httpx.Caller(c), 0, ids); err != nil {
		return err
	}
	httpx.Raw(c, map[string]any{"code": httpx.CodeOK, "msg": ""})
	return nil
}
