// Package knowledge holds the HTTP handlers of knowledge bases for
// builders under /api/knowledge: knowledge bases, their documents and
// chunks, indexing progress and the retrieval test (hit testing).
package knowledge

import (
	"bytes"
	"encoding/json"
	"strings"

	"github.com/cloudwego/hertz/pkg/app"

	knowledgeapp "github.com/pergola-ai/pergola/application/knowledge"
	"github.com/pergola-ai/pergola/backend/api/httpx"
	"github.com/pergola-ai/pergola/domain/errs"
	"github.com/pergola-ai/pergola/domain/knowledge"
)

// KnowledgeDTO is a knowledge base as the API shows it, with Coze's counts.
type KnowledgeDTO struct {
	ID             httpx.ID    `json:"id"`
	WorkspaceID    httpx.ID    `json:"workspace_id"`
	CreatorID      httpx.ID    `json:"creator_id"`
	Name           string      `json:"name"`
	Description    string      `json:"description"`
	IconFileID     string      `json:"icon_file_id"`
	FormatType     int         `json:"format_type"`
	EmbeddingModel string      `json:"embedding_model"`
	Dimensions     int         `json:"dimensions"`
	ChunkStrategy  StrategyDTO `json:"chunk_strategy"`
	DocCount       int64       `json:"doc_count"`
	SliceCount     int64       `json:"slice_count"`
	AllFileSize    int64       `json:"all_file_size"`
	Processing     []httpx.ID  `json:"processing_document_ids"`
	Failed         []httpx.ID  `json:"failed_document_ids"`
	CreatedAt      int64       `json:"created_at"`
	UpdatedAt      int64       `json:"updated_at"`
}

// StrategyDTO is a chunk strategy, Coze's chunk_strategy plus overlap.
type StrategyDTO struct {
	ChunkType         int    `json:"chunk_type"`
	Separator         string `json:"separator,omitempty"`
	MaxTokens         int    `json:"max_tokens,omitempty"`
	Overlap           int    `json:"overlap,omitempty"`
	RemoveExtraSpaces bool   `json:"remove_extra_spaces,omitempty"`
	RemoveURLsEmails  bool   `json:"remove_urls_emails,omitempty"`
}

func newStrategyDTO(s knowledge.ChunkStrategy) StrategyDTO {
	return StrategyDTO{ChunkType: int(s.Type), Separator: s.Separator, MaxTokens: s.MaxTokens, Overlap: s.Overlap,
		RemoveExtraSpaces: s.RemoveExtraSpaces, RemoveURLsEmails: s.RemoveURLsEmails}
}

func (s *StrategyDTO) strategy() *knowledge.ChunkStrategy {
	if s == nil {
		return nil
	}
	return &knowledge.ChunkStrategy{Type: knowledge.ChunkType(s.ChunkType), Separator: s.Separator, MaxTokens: s.MaxTokens,
		Overlap: s.Overlap, RemoveExtraSpaces: s.RemoveExtraSpaces, RemoveURLsEmails: s.RemoveURLsEmails}
}

func ids(in []int64) []httpx.ID {
	out := make([]httpx.ID, len(in))
	for i, id := range in {
		out[i] = httpx.ID(id)
	}
	return out
}

func newKnowledgeDTO(v *knowledgeapp.View) KnowledgeDTO {
	b := v.Base
	return KnowledgeDTO{ID: httpx.ID(b.ID), WorkspaceID: httpx.ID(b.WorkspaceID), CreatorID: httpx.ID(b.CreatorID), Name: b.Name,
		Description: b.Description, IconFileID: httpx.OptionalID(b.IconFileID), FormatType: int(b.Format), EmbeddingModel: b.EmbeddingModel,
		Dimensions: b.Dimensions, ChunkStrategy: newStrategyDTO(b.ChunkStrategy), DocCount: v.Counts.Documents, SliceCount: v.Counts.Chunks,
		AllFileSize: v.Counts.Bytes, Processing: ids(v.Counts.Processing), Failed: ids(v.Counts.Failed),
		CreatedAt: httpx.Unix(b.CreatedAt), UpdatedAt: httpx.Unix(b.UpdatedAt)}
}

// DocumentDTO is a document with its indexing status.
type DocumentDTO struct {
	ID            httpx.ID      `json:"id"`
	KnowledgeID   httpx.ID      `json:"knowledge_id"`
	CreatorID     httpx.ID      `json:"creator_id"`
	Name          string        `json:"name"`
	Source        string        `json:"source"`
	FileID        string        `json:"file_id"`
	URL           string        `json:"url,omitempty"`
	FileType      string        `json:"file_type"`
	Size          int64         `json:"size"`
	Status        int           `json:"status"`
	StatusName    string        `json:"status_name"`
	Reason        string        `json:"reason,omitempty"`
	Progress      int           `json:"progress"`
	ChunkCount    int64         `json:"chunk_count"`
	ChunkStrategy StrategyDTO   `json:"chunk_strategy"`
	Columns       []ColumnDTO   `json:"columns"`
	UpdateRule    UpdateRuleDTO `json:"update_rule"`
	CreatedAt     int64         `json:"created_at"`
	UpdatedAt     int64         `json:"updated_at"`
	RefreshedAt   int64         `json:"refreshed_at"`
}

// ColumnDTO is a column of table knowledge.
type ColumnDTO struct {
	Name    string `json:"name"`
	Indexed bool   `json:"indexed"`
}

// UpdateRuleDTO is Coze's update_rule: update_type 1 refreshes a web page
// every update_interval hours.
type UpdateRuleDTO struct {
	UpdateType     int `json:"update_type"`
	UpdateInterval int `json:"update_interval"`
}

// rule reads the rule given at field; none is a rule of refreshing only
// when asked.
func (r *UpdateRuleDTO) rule(field string) (knowledge.UpdateRule, error) {
	if r == nil {
		return knowledge.UpdateRule{}, nil
	}
	return knowledge.NewUpdateRule(field, r.UpdateType, r.UpdateInterval)
}

func newDocumentDTO(d *knowledge.Document) DocumentDTO {
	out := DocumentDTO{ID: httpx.ID(d.ID), KnowledgeID: httpx.ID(d.KnowledgeID), CreatorID: httpx.ID(d.CreatorID), Name: d.Name,
		Source: string(d.Source), FileID: httpx.OptionalID(d.FileID), URL: d.URL, FileType: d.FileType, Size: d.Size, Status: int(d.Status),
		StatusName: d.Status.String(), Reason: d.Reason, Progress: d.Progress, ChunkCount: d.Chunks, ChunkStrategy: newStrategyDTO(d.Strategy),
		Columns: make([]ColumnDTO, len(d.Columns)), CreatedAt: httpx.Unix(d.CreatedAt), UpdatedAt: httpx.Unix(d.UpdatedAt),
		RefreshedAt: httpx.UnixPtr(d.RefreshedAt)}
	if d.UpdateRule.Auto {
		out.UpdateRule = UpdateRuleDTO{UpdateType: 1, UpdateInterval: d.UpdateRule.IntervalHours}
	}
	for i, c := range d.Columns {
		out.Columns[i] = ColumnDTO{Name: c.Name, Indexed: c.Indexed}
	}
	return out
}

// ChunkDTO is a chunk of a document.
type ChunkDTO struct {
	ID         httpx.ID          `json:"id"`
	DocumentID httpx.ID          `json:"document_id"`
	Position   int               `json:"position"`
	Text       string            `json:"text"`
	Headings   []string          `json:"headings"`
	Row        map[string]string `json:"row,omitempty"`
}

func newChunkDTO(c *knowledge.Chunk) ChunkDTO {
	return ChunkDTO{ID: httpx.ID(c.ID), DocumentID: httpx.ID(c.DocumentID), Position: c.Position, Text: c.Text,
		Headings: httpx.NonNil(c.Headings), Row: c.Row}
}

// bindStrict decodes a JSON body, refusing fields the API does not know
// (a misspelt field would otherwise be ignored silently).
func bindStrict(c *app.RequestContext, dst any) error {
	body := c.Request.Body()
	if len(bytes.TrimSpace(body)) == 0 {
		return errs.Invalid("body", "is required: a JSON object")
	}
	dec := json.NewDecoder(bytes.NewReader(body))
	dec.DisallowUnknownFields()
	if err := dec.Decode(dst); err != nil {
		if name, ok := strings.CutPrefix(err.Error(), "json: unknown field "); ok {
			return errs.Invalid(strings.Trim(name, `"`), "is not a known field; see /openapi.yaml")
		}
		return httpx.BindJSON(c, dst)
	}
	return nil
}
