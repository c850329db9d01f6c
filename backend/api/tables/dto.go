// Package tables holds the HTTP handlers of tables: the builders' routes
// under /api/tables (definitions, rows, CSV, a SQL console) and the
// administrators' list under /api/admin/tables.
package tables

import (
	"bytes"
	"encoding/json"
	"strings"

	"github.com/cloudwego/hertz/pkg/app"

	tableapp "github.com/pergola-ai/pergola/application/table"
	"github.com/pergola-ai/pergola/backend/api/httpx"
	"github.com/pergola-ai/pergola/domain/errs"
	"github.com/pergola-ai/pergola/domain/table"
)

// TableDTO is a table's definition as the API shows it.
type TableDTO struct {
	ID          httpx.ID   `json:"id"`
	WorkspaceID httpx.ID   `json:"workspace_id"`
	CreatorID   httpx.ID   `json:"creator_id"`
	Name        string     `json:"name"`
	Description string     `json:"description"`
	Mode        string     `json:"mode"`
	Fields      []FieldDTO `json:"fields"`
	Revision    int64      `json:"revision"`
	CreatedAt   int64      `json:"created_at"`
	UpdatedAt   int64      `json:"updated_at"`
}

// FieldDTO is a field; its id keeps it across renames.
type FieldDTO struct {
	ID          int    `json:"id"`
	Name        string `json:"name"`
	Type        string `json:"type"`
	Description string `json:"description"`
	Required    bool   `json:"required"`
}

func newTableDTO(t *table.Table) TableDTO {
	d := TableDTO{ID: httpx.ID(t.ID), WorkspaceID: httpx.ID(t.WorkspaceID), CreatorID: httpx.ID(t.CreatorID), Name: t.Name,
		Description: t.Description, Mode: string(t.Mode), Fields: make([]FieldDTO, len(t.Fields)), Revision: t.Revision,
		CreatedAt: httpx.Unix(t.CreatedAt), UpdatedAt: httpx.Unix(t.UpdatedAt)}
	for i, f := range t.Fields {
		d.Fields[i] = FieldDTO{ID: f.ID, Name: f.Name, Type: string(f.Type), Description: f.Description, Required: f.Required}
	}
	return d
}

func fieldSpecs(in []FieldDTO) []table.FieldSpec {
	if in == nil {
		return nil
	}
	out := make([]table.FieldSpec, len(in))
	for i, f := range in {
		out[i] = table.FieldSpec{ID: f.ID, Name: f.Name, Type: table.FieldType(f.Type), Description: f.Description, Required: f.Required}
	}
	return out
}

// RowDTO is a row as builders see it.
type RowDTO struct {
	ID        httpx.ID       `json:"id"`
	UserID    string         `json:"user_id"`
	Values    map[string]any `json:"values"`
	CreatedAt int64          `json:"created_at"`
	UpdatedAt int64          `json:"updated_at"`
}

func newRowDTO(r table.Row) RowDTO {
	return RowDTO{ID: httpx.ID(r.ID), UserID: r.UserID, Values: r.Values, CreatedAt: httpx.Unix(r.CreatedAt), UpdatedAt: httpx.Unix(r.UpdatedAt)}
}

// ResultDTO is what a statement of the SQL console answered.
type ResultDTO struct {
	Columns      []string `json:"columns,omitempty"`
	Rows         [][]any  `json:"rows,omitempty"`
	Truncated    bool     `json:"truncated,omitempty"`
	AffectedRows *int64   `json:"affected_rows,omitempty"`
	InsertID     int64    `json:"insert_id,omitempty"`
}

func newResultDTO(r *table.Result) ResultDTO {
	if r.Write {
		return ResultDTO{AffectedRows: &r.Affected, InsertID: r.InsertID}
	}
	rows := r.Rows
	if rows == nil {
		rows = [][]any{}
	}
	return ResultDTO{Columns: r.Columns, Rows: rows, Truncated: r.Truncated}
}

// SizedDTO is a table with its size, for administrators.
type SizedDTO struct {
	TableDTO
	DraftRows  int64 `json:"draft_rows"`
	OnlineRows int64 `json:"online_rows"`
	Bytes      int64 `json:"bytes"`
}

func newSizedDTO(s tableapp.Sized) SizedDTO {
	return SizedDTO{TableDTO: newTableDTO(&s.Table), DraftRows: s.Size.DraftRows, OnlineRows: s.Size.OnlineRows, Bytes: s.Size.Bytes}
}

// bindStrict decodes a JSON object body like httpx.BindJSON and refuses
// fields dst does not have, so a misspelt field is reported rather than
// ignored. An empty body is refused.
func bindStrict(c *app.RequestContext, dst any) error {
	body := c.Request.Body()
	if len(bytes.TrimSpace(body)) == 0 {
		return errs.Invalid("body", "is required: a JSON object")
	}
	dec := json.NewDecoder(bytes.NewReader(body))
	dec.DisallowUnknownFields()
	dec.UseNumber()
	if err := dec.Decode(dst); err != nil {
		if name, ok := strings.CutPrefix(err.Error(), "json: unknown field "); ok {
			return errs.Invalid(strings.Trim(name, `"`), "is not a known field; see /openapi.yaml")
		}
		return httpx.BindJSON(c, dst)
	}
	return nil
}

// data reads the "data" query parameter: draft or online (the default).
func data(c *app.RequestContext) (table.Data, error) {
	return table.ParseData("data", string(c.Query("data")))
}
