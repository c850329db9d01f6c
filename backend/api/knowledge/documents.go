package knowledge

import (
	"context"
	"encoding/base64"
	"fmt"
	"net/http"
	"strings"

	"github.com/cloudwego/hertz/pkg/app"

	knowledgeapp "github.com/pergola-ai/pergola/application/knowledge"
	"github.com/pergola-ai/pergola/backend/api/httpx"
	"github.com/pergola-ai/pergola/domain/errs"
	"github.com/pergola-ai/pergola/domain/knowledge"
)

// DocumentInputDTO is a document to add: exactly one of file_id (an
// uploaded file), content (base64, with file_type), url or text.
type DocumentInputDTO struct {
	Name          string         `json:"name"`
	FileID        httpx.ID       `json:"file_id"`
	Content       string         `json:"content"`
	FileType      string         `json:"file_type"`
	URL           string         `json:"url"`
	Text          string         `json:"text"`
	ChunkStrategy *StrategyDTO   `json:"chunk_strategy"`
	Columns       []ColumnDTO    `json:"columns"`
	UpdateRule    *UpdateRuleDTO `json:"update_rule"`
}

func (d DocumentInputDTO) input(field string) (knowledgeapp.DocumentInput, error) {
	in := knowledgeapp.DocumentInput{Name: d.Name, FileID: int64(d.FileID), FileType: d.FileType, URL: d.URL, Text: d.Text,
		Strategy: d.ChunkStrategy.strategy()}
	var err error
	if in.UpdateRule, err = d.UpdateRule.rule(field + ".update_rule"); err != nil {
		return in, err
	}
	if d.Content != "" {
		b, err := base64.StdEncoding.DecodeString(strings.TrimSpace(d.Content))
		if err != nil {
			return in, errs.Invalid(field+".content", "is not valid base64: %v", err)
		}
		in.Content = b
	}
	for _, c := range d.Columns {
		in.Columns = append(in.Columns, knowledge.Column{Name: c.Name, Indexed: c.Indexed})
	}
	return in, nil
}

// AddDocuments answers POST /api/knowledge/:id/documents {documents:[...]}
// with 201 and the documents, processing: indexing goes on in a worker.
func (h Console) AddDocuments(ctx context.Context, c *app.RequestContext) error {
	id, err := httpx.PathID(c, "id")
	if err != nil {
		return err
	}
	var req struct {
		Documents []DocumentInputDTO `json:"documents"`
	}
	if err := bindStrict(c, &req); err != nil {
		return err
	}
	ins := make([]knowledgeapp.DocumentInput, len(req.Documents))
	for i, d := range req.Documents {
		if ins[i], err = d.input(fmt.Sprintf("documents[%d]", i)); err != nil {
			return err
		}
	}
	docs, err := h.Svc.AddDocuments(ctx, httpx.Caller(c), id, ins)
	if err != nil {
		return err
	}
	out := make([]DocumentDTO, len(docs))
	for i := range docs {
		out[i] = newDocumentDTO(&docs[i])
	}
	c.JSON(http.StatusCreated, httpx.Envelope{Data: map[string]any{"documents": out}})
	return nil
}

// Documents answers GET /api/knowledge/:id/documents?page_num&page_size.
func (h Console) Documents(ctx context.Context, c *app.RequestContext) error {
	id, err := httpx.PathID(c, "id")
	if err != nil {
		return err
	}
	page, err := httpx.Paging(c, 20, 100)
	if err != nil {
		return err
	}
	docs, total, err := h.Svc.ListDocuments(ctx, httpx.Caller(c), id, page)
	if err != nil {
		return err
	}
	out := make([]DocumentDTO, len(docs))
	for i := range docs {
		out[i] = newDocumentDTO(&docs[i])
	}
	httpx.OK(c, httpx.List[DocumentDTO]{Items: out, Total: total})
	return nil
}

// UpdateDocument answers PATCH /api/knowledge/:id/documents/:document_id
// {name?, update_rule?}.
func (h Console) UpdateDocument(ctx context.Context, c *app.RequestContext) error {
	id, doc, err := pathIDs(c, "document_id")
	if err != nil {
		return err
	}
	var req struct {
		Name       *string        `json:"name"`
		UpdateRule *UpdateRuleDTO `json:"update_rule"`
	}
	if err := bindStrict(c, &req); err != nil {
		return err
	}
	pt := knowledgeapp.DocumentPatch{Name: req.Name}
	if req.UpdateRule != nil {
		r, err := req.UpdateRule.rule("update_rule")
		if err != nil {
			return err
		}
		pt.UpdateRule = &r
	}
	d, err := h.Svc.UpdateDocument(ctx, httpx.Caller(c), id, doc, pt)
	if err != nil {
		return err
	}
	httpx.OK(c, newDocumentDTO(d))
	return nil
}

// DeleteDocument answers DELETE /api/knowledge/:id/documents/:document_id.
func (h Console) DeleteDocument(ctx context.Context, c *app.RequestContext) error {
	id, doc, err := pathIDs(c, "document_id")
	if err != nil {
		return err
	}
	if err := h.Svc.DeleteDocuments(ctx, httpx.Caller(c), id, []int64{doc}); err != nil {
		return err
	}
	httpx.OK(c, nil)
	return nil
}

// Refresh answers POST /api/knowledge/:id/documents/:document_id/refresh:
// the document is indexed again from its source (a web page fetched
// again); 409 while it is being indexed.
func (h Console) Refresh(ctx context.Context, c *app.RequestContext) error {
	id, doc, err := pathIDs(c, "document_id")
	if err != nil {
		return err
	}
	d, err := h.Svc.Refresh(ctx, httpx.Caller(c), id, doc)
	if err != nil {
		return err
	}
	httpx.OK(c, newDocumentDTO(d))
	return nil
}

// Progress answers GET /api/knowledge/:id/progress?document_ids=1,2 (none:
// the first 100 documents).
func (h Console) Progress(ctx context.Context, c *app.RequestContext) error {
	id, err := httpx.PathID(c, "id")
	if err != nil {
		return err
	}
	var docs []int64
	for _, s := range strings.Split(string(c.Query("document_ids")), ",") {
		if s = strings.TrimSpace(s); s == "" {
			continue
		}
		n, err := httpx.ParseID("document_ids", s)
		if err != nil {
			return err
		}
		docs = append(docs, n)
	}
	ps, err := h.Svc.Progress(ctx, httpx.Caller(c), id, docs)
	if err != nil {
		return err
	}
	out := make([]ProgressDTO, len(ps))
	for i, p := range ps {
		out[i] = ProgressDTO{DocumentID: httpx.ID(p.ID), Name: p.Name, Status: int(p.Status), StatusName: p.Status.String(),
			Progress: p.Progress, RemainingSeconds: p.RemainingSeconds, Reason: p.Reason, ChunkCount: p.Chunks}
	}
	httpx.OK(c, map[string]any{"items": out})
	return nil
}

// ProgressDTO is a document's indexing progress (Coze's DocumentProgress).
type ProgressDTO struct {
	DocumentID       httpx.ID `json:"document_id"`
	Name             string   `json:"name"`
	Status           int      `json:"status"`
	StatusName       string   `json:"status_name"`
	Progress         int      `json:"progress"`
	RemainingSeconds int      `json:"remaining_seconds"`
	Reason           string   `json:"reason,omitempty"`
	ChunkCount       int64    `json:"chunk_count"`
}

// pathIDs parses the knowledge base's id and another path id.
func pathIDs(c *app.RequestContext, name string) (int64, int64, error) {
	id, err := httpx.PathID(c, "id")
	if err != nil {
		return 0, 0, err
	}
	other, err := httpx.PathID(c, name)
	return id, other, err
}
